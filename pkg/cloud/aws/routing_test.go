package aws_test

import (
	"fmt"
	"testing"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

// How traffic leaves each VPC, read through the SDK: a VPC routed through
// a NAT gateway gives its interfaces the gateway's address as egress (and
// follows a change of it), one routed to the internet gateway its
// interfaces' own public IPs (none without one), and an active peering
// shows on both VPCs, gone once deleted.
func TestRouting(t *testing.T) {
	f := newFixture(t, 3)
	add := func(vpc string, public bool) awsemu.Instance {
		t.Helper()
		vm, err := f.emu.AddInstance(awsemu.InstanceSpec{Region: region, VPCID: vpc, PublicIP: public})
		if err != nil {
			t.Fatal(err)
		}
		return vm
	}
	private, public, isolated := add(f.vpcs[0], true), add(f.vpcs[1], true), add(f.vpcs[1], false)
	nat, err := f.emu.AddNATGateway(region, f.vpcs[0], "198.51.100.7")
	if err != nil {
		t.Fatal(err)
	}
	pcx, err := f.emu.AddVPCPeering(region, f.vpcs[0], f.vpcs[2])
	if err != nil {
		t.Fatal(err)
	}
	p := f.provider(t, nil)
	egress := func() string {
		t.Helper()
		snap, err := p.Inventory(t.Context(), region)
		if err != nil {
			t.Fatal(err)
		}
		var out string
		for _, id := range []string{private.ID, public.ID, isolated.ID} {
			vm, _ := snap.VM(id)
			out += fmt.Sprintf("%v@%s ", vm.NICs[0].EgressIPs, vm.NICs[0].NATGatewayID)
		}
		for _, v := range snap.VPCs {
			for _, peer := range v.Peerings {
				out += fmt.Sprintf("%s->%s%v/%s ", v.ID, peer.PeerVPCID, peer.PeerCIDRs, peer.ID)
			}
		}
		return out
	}
	snap, err := p.Inventory(t.Context(), region)
	if err != nil {
		t.Fatal(err)
	}
	vm, _ := snap.VM(public.ID)
	pubIP := vm.NICs[0].PublicIPs[0]
	want := fmt.Sprintf("[198.51.100.7]@%s [%s]@ []@ %s->%s[10.2.0.0/16]/%s %s->%s[10.0.0.0/16]/%s ", nat, pubIP,
		f.vpcs[0], f.vpcs[2], pcx, f.vpcs[2], f.vpcs[0], pcx)
	if got := egress(); got != want {
		t.Errorf("egress and peerings:\n got %s\nwant %s", got, want)
	}

	if err := f.emu.SetNATGatewayAddress(region, nat, "198.51.100.8"); err != nil {
		t.Fatal(err)
	}
	if err := f.emu.DeleteVPCPeering(region, pcx); err != nil {
		t.Fatal(err)
	}
	want = fmt.Sprintf("[198.51.100.8]@%s [%s]@ []@ ", nat, pubIP)
	if got := egress(); got != want {
		t.Errorf("after the NAT gateway's new address and the peering's deletion:\n got %s\nwant %s", got, want)
	}
}

// The same changes made through the EC2 API, as an operator's tools make
// them: a new NAT gateway with a new elastic IP, the VPC's default route
// replaced to go through it; a peering requested and accepted, then
// deleted.
func TestRoutingChangedThroughTheAPI(t *testing.T) {
	f := newFixture(t, 2)
	vm, err := f.emu.AddInstance(awsemu.InstanceSpec{Region: region, VPCID: f.vpcs[0]})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.emu.AddNATGateway(region, f.vpcs[0], "198.51.100.7"); err != nil {
		t.Fatal(err)
	}
	p, c, ctx := f.provider(t, nil), f.ec2Client(), t.Context()
	snapshot := func() (egress []string, peerings int) {
		t.Helper()
		snap, err := p.Inventory(ctx, region)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := snap.VM(vm.ID)
		for _, v := range snap.VPCs {
			peerings += len(v.Peerings)
		}
		return got.NICs[0].EgressIPs, peerings
	}
	snap, err := p.Inventory(ctx, region)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := snap.VM(vm.ID)
	subnet := got.NICs[0].SubnetID

	eip, err := c.AllocateAddress(ctx, &ec2.AllocateAddressInput{Address: awssdk.String("198.51.100.9")})
	if err != nil {
		t.Fatal(err)
	}
	nat, err := c.CreateNatGateway(ctx, &ec2.CreateNatGatewayInput{SubnetId: awssdk.String(subnet), AllocationId: eip.AllocationId})
	if err != nil {
		t.Fatal(err)
	}
	tables, err := c.DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	var table string
	for _, rt := range tables.RouteTables {
		if awssdk.ToString(rt.VpcId) == f.vpcs[0] {
			table = awssdk.ToString(rt.RouteTableId)
		}
	}
	if _, err := c.ReplaceRoute(ctx, &ec2.ReplaceRouteInput{RouteTableId: awssdk.String(table), DestinationCidrBlock: awssdk.String("0.0.0.0/0"),
		NatGatewayId: nat.NatGateway.NatGatewayId}); err != nil {
		t.Fatal(err)
	}
	pcx, err := c.CreateVpcPeeringConnection(ctx, &ec2.CreateVpcPeeringConnectionInput{VpcId: awssdk.String(f.vpcs[0]), PeerVpcId: awssdk.String(f.vpcs[1])})
	if err != nil {
		t.Fatal(err)
	}
	if egress, peerings := snapshot(); fmt.Sprint(egress) != "[198.51.100.9]" || peerings != 0 {
		t.Errorf("egress %v and %d peerings before the peering is accepted; want [198.51.100.9] and none", egress, peerings)
	}
	if _, err := c.AcceptVpcPeeringConnection(ctx, &ec2.AcceptVpcPeeringConnectionInput{VpcPeeringConnectionId: pcx.VpcPeeringConnection.VpcPeeringConnectionId}); err != nil {
		t.Fatal(err)
	}
	if _, peerings := snapshot(); peerings != 2 {
		t.Errorf("%d peerings once accepted; want one on each VPC", peerings)
	}
	if _, err := c.DeleteVpcPeeringConnection(ctx, &ec2.DeleteVpcPeeringConnectionInput{VpcPeeringConnectionId: pcx.VpcPeeringConnection.VpcPeeringConnectionId}); err != nil {
		t.Fatal(err)
	}
	if _, peerings := snapshot(); peerings != 0 {
		t.Errorf("%d peerings once deleted; want none", peerings)
	}
}

// VPCs attached to one transit gateway are flat to each other (with each
// other's ranges), until detached.
func TestTransitGateway(t *testing.T) {
	f := newFixture(t, 3)
	a, err := f.emu.AttachToTransitGateway(region, "tgw-0a", f.vpcs[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.emu.AttachToTransitGateway(region, "tgw-0a", f.vpcs[1]); err != nil {
		t.Fatal(err)
	}
	p := f.provider(t, nil)
	read := func() string {
		t.Helper()
		snap, err := p.Inventory(t.Context(), region)
		if err != nil {
			t.Fatal(err)
		}
		var out string
		for _, v := range snap.VPCs {
			for _, peer := range v.Peerings {
				out += fmt.Sprintf("%s->%s%v/%s ", v.ID, peer.PeerVPCID, peer.PeerCIDRs, peer.Via)
			}
		}
		return out
	}
	want := fmt.Sprintf("%s->%s[10.1.0.0/16]/TransitGateway %s->%s[10.0.0.0/16]/TransitGateway ", f.vpcs[0], f.vpcs[1], f.vpcs[1], f.vpcs[0])
	if got := read(); got != want {
		t.Errorf("peerings:\n got %s\nwant %s", got, want)
	}
	if err := f.emu.DetachFromTransitGateway(region, a); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "" {
		t.Errorf("peerings after the detachment: %s, want none", got)
	}
}
