package awsemu_test

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

func TestDescribeInstancesPagingAndFilters(t *testing.T) {
	emu, c := newEmulator(t, awsemu.Options{})
	vpcA := mustVPC(t, emu, awsemu.VPCSpec{Name: "a"})
	vpcB := mustVPC(t, emu, awsemu.VPCSpec{Name: "b", CIDR: "10.1.0.0/16"})
	var inA []string
	for n := range 23 {
		tags := map[string]string{}
		if n%2 == 1 {
			tags["env"] = "prod"
		}
		vm := mustInstance(t, emu, awsemu.InstanceSpec{VPCID: vpcA, Name: "web-" + string(rune('a'+n)), Tags: tags})
		inA = append(inA, vm.ID)
	}
	inB := mustInstance(t, emu, awsemu.InstanceSpec{VPCID: vpcB, Name: "db", State: "stopped"}).ID

	ids, err := allInstances(t, c, &ec2.DescribeInstancesInput{MaxResults: aws.Int32(5)})
	if err != nil {
		t.Fatal(err)
	}
	if want := append(slices.Clone(inA), inB); !slices.Equal(ids, want) {
		t.Fatalf("paged ids = %v; want every instance once, in id order: %v", ids, want)
	}
	if n := emu.Calls("DescribeInstances"); n != 5 {
		t.Errorf("24 instances at 5 a page took %d calls; want 5", n)
	}

	for _, tc := range []struct {
		name    string
		filters []types.Filter
		want    int
	}{
		{"vpc-id", []types.Filter{{Name: aws.String("vpc-id"), Values: []string{vpcB}}}, 1},
		{"tag value", []types.Filter{{Name: aws.String("tag:env"), Values: []string{"prod"}}}, 11},
		{"tag wildcard", []types.Filter{{Name: aws.String("tag:Name"), Values: []string{"web-?"}}}, 23},
		{"state", []types.Filter{{Name: aws.String("instance-state-name"), Values: []string{"stopped"}}}, 1},
		{"two states", []types.Filter{{Name: aws.String("instance-state-name"), Values: []string{"running", "stopped"}}}, 24},
		{"and of filters", []types.Filter{
			{Name: aws.String("vpc-id"), Values: []string{vpcA}},
			{Name: aws.String("tag-key"), Values: []string{"env"}},
		}, 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids, err := allInstances(t, c, &ec2.DescribeInstancesInput{Filters: tc.filters, MaxResults: aws.Int32(1000)})
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) != tc.want {
				t.Fatalf("got %d instances; want %d", len(ids), tc.want)
			}
		})
	}

	ctx := t.Context()
	_, err = c.DescribeInstances(ctx, &ec2.DescribeInstancesInput{Filters: []types.Filter{{Name: aws.String("colour"), Values: []string{"x"}}}})
	wantCode(t, err, "InvalidParameterValue")
	_, err = c.DescribeInstances(ctx, &ec2.DescribeInstancesInput{MaxResults: aws.Int32(3)})
	wantCode(t, err, "InvalidParameterValue")
	_, err = c.DescribeInstances(ctx, &ec2.DescribeInstancesInput{MaxResults: aws.Int32(5), InstanceIds: []string{inB}})
	wantCode(t, err, "InvalidParameterCombination")
	_, err = c.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{"i-00000000000000bad"}})
	wantCode(t, err, "InvalidInstanceID.NotFound")
	_, err = c.DescribeInstances(ctx, &ec2.DescribeInstancesInput{NextToken: aws.String("!!")})
	wantCode(t, err, "InvalidPaginationToken")
}

func TestDescribeInstancesShape(t *testing.T) {
	emu, c := newEmulator(t, awsemu.Options{})
	vpc := mustVPC(t, emu, awsemu.VPCSpec{Name: "prod", CIDR: "10.9.0.0/16", Tags: map[string]string{"team": "net"}})
	vm := mustInstance(t, emu, awsemu.InstanceSpec{VPCID: vpc, Name: "web", NICs: 2, PublicIP: true, InstanceType: "m5.large", Tags: map[string]string{"env": "prod"}})
	if err := emu.SetTags(testRegion, vm.NICs[1], map[string]string{"role": "backend"}); err != nil {
		t.Fatal(err)
	}

	out, err := c.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{InstanceIds: []string{vm.ID}})
	if err != nil {
		t.Fatal(err)
	}
	i := out.Reservations[0].Instances[0]
	if i.InstanceType != "m5.large" {
		t.Errorf("instance type = %q", i.InstanceType)
	}
	if i.State.Name != types.InstanceStateNameRunning || aws.ToInt32(i.State.Code) != 16 {
		t.Errorf("state = %v/%v; want running/16", i.State.Name, aws.ToInt32(i.State.Code))
	}
	if aws.ToString(i.VpcId) != vpc || aws.ToString(i.Placement.AvailabilityZone) != "us-east-1a" {
		t.Errorf("vpc/zone = %s/%s", aws.ToString(i.VpcId), aws.ToString(i.Placement.AvailabilityZone))
	}
	if aws.ToString(i.PrivateIpAddress) != "10.9.0.1" || aws.ToString(i.PublicIpAddress) == "" {
		t.Errorf("addresses = %s / %s; want 10.9.0.1 and a public one", aws.ToString(i.PrivateIpAddress), aws.ToString(i.PublicIpAddress))
	}
	if len(i.Tags) != 2 || aws.ToString(i.Tags[0].Key) != "Name" || aws.ToString(i.Tags[1].Value) != "prod" {
		t.Errorf("tags = %+v", i.Tags)
	}
	if len(i.NetworkInterfaces) != 2 {
		t.Fatalf("%d interfaces; want 2", len(i.NetworkInterfaces))
	}
	n0, n1 := i.NetworkInterfaces[0], i.NetworkInterfaces[1]
	if aws.ToInt32(n0.Attachment.DeviceIndex) != 0 || aws.ToInt32(n1.Attachment.DeviceIndex) != 1 {
		t.Errorf("device indexes = %d, %d", aws.ToInt32(n0.Attachment.DeviceIndex), aws.ToInt32(n1.Attachment.DeviceIndex))
	}
	if n0.Association == nil || aws.ToString(n0.Association.PublicIp) != aws.ToString(i.PublicIpAddress) {
		t.Errorf("primary interface association = %+v", n0.Association)
	}
	if len(n0.Groups) != 1 || aws.ToString(n0.Groups[0].GroupName) != "default" || aws.ToString(n0.MacAddress) == "" {
		t.Errorf("primary interface = %+v", n0)
	}

	enis, err := c.DescribeNetworkInterfaces(t.Context(), &ec2.DescribeNetworkInterfacesInput{
		Filters: []types.Filter{{Name: aws.String("attachment.instance-id"), Values: []string{vm.ID}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(enis.NetworkInterfaces) != 2 || aws.ToString(enis.NetworkInterfaces[1].Attachment.InstanceId) != vm.ID {
		t.Fatalf("interfaces of %s = %+v", vm.ID, enis.NetworkInterfaces)
	}
	if tags := enis.NetworkInterfaces[1].TagSet; len(tags) != 1 || aws.ToString(tags[0].Value) != "backend" {
		t.Errorf("interface tags = %+v", tags)
	}

	vpcs, err := c.DescribeVpcs(t.Context(), &ec2.DescribeVpcsInput{Filters: []types.Filter{{Name: aws.String("tag:team"), Values: []string{"net"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(vpcs.Vpcs) != 1 || aws.ToString(vpcs.Vpcs[0].CidrBlock) != "10.9.0.0/16" {
		t.Errorf("vpcs = %+v", vpcs.Vpcs)
	}
	regions, err := c.DescribeRegions(t.Context(), &ec2.DescribeRegionsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(regions.Regions) != 3 {
		t.Errorf("regions = %+v; want the 3 defaults", regions.Regions)
	}
}

func TestTerminateAndChangeBetweenPolls(t *testing.T) {
	emu, c := newEmulator(t, awsemu.Options{})
	vpc := mustVPC(t, emu, awsemu.VPCSpec{})
	vm := mustInstance(t, emu, awsemu.InstanceSpec{VPCID: vpc})
	if err := emu.SetPrivateIP(testRegion, vm.ID, "10.0.200.7"); err != nil {
		t.Fatal(err)
	}
	out, err := c.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(out.Reservations[0].Instances[0].PrivateIpAddress); got != "10.0.200.7" {
		t.Errorf("private IP after change = %s", got)
	}
	if err := emu.Terminate(testRegion, vm.ID); err != nil {
		t.Fatal(err)
	}
	out, err = c.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{})
	if err != nil {
		t.Fatal(err)
	}
	i := out.Reservations[0].Instances[0]
	if i.State.Name != types.InstanceStateNameTerminated || len(i.NetworkInterfaces) != 0 {
		t.Errorf("terminated instance = %v with %d interfaces", i.State.Name, len(i.NetworkInterfaces))
	}
	if err := emu.RemoveInstance(testRegion, vm.ID); err != nil {
		t.Fatal(err)
	}
	if ids, _ := allInstances(t, c, &ec2.DescribeInstancesInput{}); len(ids) != 0 {
		t.Errorf("removed instance still described: %v", ids)
	}
}
