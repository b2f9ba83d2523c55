package aws_test

import (
	"fmt"
	"testing"

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
