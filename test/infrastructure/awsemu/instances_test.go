package awsemu_test

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

// privateIPs are the private addresses of an interface, primary first.
func privateIPs(t *testing.T, c *ec2.Client, eni string) []string {
	t.Helper()
	out, err := c.DescribeNetworkInterfaces(t.Context(), &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{eni}})
	if err != nil {
		t.Fatal(err)
	}
	var ips []string
	for _, ip := range out.NetworkInterfaces[0].PrivateIpAddresses {
		ips = append(ips, aws.ToString(ip.PrivateIpAddress))
	}
	return ips
}

func TestTerminateInstances(t *testing.T) {
	emu, c := newEmulator(t, awsemu.Options{})
	ctx := t.Context()
	vpc := mustVPC(t, emu, awsemu.VPCSpec{})
	vm := mustInstance(t, emu, awsemu.InstanceSpec{VPCID: vpc})

	_, err := c.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: []string{vm.ID, "i-00000000000000bad"}})
	wantCode(t, err, "InvalidInstanceID.NotFound")
	out, err := c.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: []string{vm.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.TerminatingInstances; len(got) != 1 || aws.ToString(got[0].InstanceId) != vm.ID ||
		got[0].CurrentState.Name != types.InstanceStateNameTerminated || got[0].PreviousState.Name != types.InstanceStateNameRunning {
		t.Fatalf("state changes = %+v; want %s running -> terminated", got, vm.ID)
	}
	desc, err := c.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{vm.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if i := desc.Reservations[0].Instances[0]; i.State.Name != types.InstanceStateNameTerminated || len(i.NetworkInterfaces) != 0 {
		t.Errorf("described after termination: state %s, %d interfaces; want terminated without interfaces", i.State.Name, len(i.NetworkInterfaces))
	}
	_, err = c.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: vm.NICs})
	wantCode(t, err, "InvalidNetworkInterfaceID.NotFound")
	if _, err := c.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: []string{vm.ID}}); err != nil {
		t.Errorf("terminating a terminated instance again: %v", err)
	}
}

func TestAssignAndUnassignPrivateIPs(t *testing.T) {
	emu, c := newEmulator(t, awsemu.Options{})
	ctx := t.Context()
	vpc := mustVPC(t, emu, awsemu.VPCSpec{CIDR: "10.20.0.0/16"})
	vm := mustInstance(t, emu, awsemu.InstanceSpec{VPCID: vpc})
	other := mustInstance(t, emu, awsemu.InstanceSpec{VPCID: vpc})
	eni := vm.NICs[0]

	out, err := c.AssignPrivateIpAddresses(ctx, &ec2.AssignPrivateIpAddressesInput{NetworkInterfaceId: aws.String(eni), PrivateIpAddresses: []string{"10.20.0.51"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.AssignedPrivateIpAddresses) != 1 || aws.ToString(out.AssignedPrivateIpAddresses[0].PrivateIpAddress) != "10.20.0.51" {
		t.Errorf("assigned = %+v; want 10.20.0.51", out.AssignedPrivateIpAddresses)
	}
	if _, err := c.AssignPrivateIpAddresses(ctx, &ec2.AssignPrivateIpAddressesInput{NetworkInterfaceId: aws.String(eni), SecondaryPrivateIpAddressCount: aws.Int32(1)}); err != nil {
		t.Fatal(err)
	}
	if got := privateIPs(t, c, eni); len(got) != 3 || got[0] != vm.PrivateIP || got[1] != "10.20.0.51" {
		t.Fatalf("private IPs = %v; want %s, 10.20.0.51 and a fresh one", got, vm.PrivateIP)
	}
	for _, bad := range []struct{ ip, code string }{
		{other.PrivateIP, "InvalidParameterValue"}, // held by another interface
		{"10.99.0.1", "InvalidParameterValue"},     // outside the VPC
	} {
		_, err := c.AssignPrivateIpAddresses(ctx, &ec2.AssignPrivateIpAddressesInput{NetworkInterfaceId: aws.String(eni), PrivateIpAddresses: []string{bad.ip}})
		wantCode(t, err, bad.code)
	}
	_, err = c.AssignPrivateIpAddresses(ctx, &ec2.AssignPrivateIpAddressesInput{NetworkInterfaceId: aws.String("eni-00000000000000bad"), PrivateIpAddresses: []string{"10.20.0.52"}})
	wantCode(t, err, "InvalidNetworkInterfaceID.NotFound")

	if _, err := c.UnassignPrivateIpAddresses(ctx, &ec2.UnassignPrivateIpAddressesInput{NetworkInterfaceId: aws.String(eni), PrivateIpAddresses: []string{"10.20.0.51"}}); err != nil {
		t.Fatal(err)
	}
	if got := privateIPs(t, c, eni); len(got) != 2 || slices.Contains(got, "10.20.0.51") {
		t.Errorf("private IPs after unassigning 10.20.0.51 = %v", got)
	}
	for _, ip := range []string{vm.PrivateIP, "10.20.0.51"} { // the primary; one no longer assigned
		_, err := c.UnassignPrivateIpAddresses(ctx, &ec2.UnassignPrivateIpAddressesInput{NetworkInterfaceId: aws.String(eni), PrivateIpAddresses: []string{ip}})
		wantCode(t, err, "InvalidParameterValue")
	}
}
