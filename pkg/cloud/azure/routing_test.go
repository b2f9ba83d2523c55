package azure_test

import (
	"fmt"
	"testing"

	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
)

// How traffic leaves each VNet, read through the SDK: a VNet whose subnet
// has a NAT gateway gives its NICs the gateway's address as egress, even a
// NIC with a public IP of its own (the NAT gateway takes precedence on
// Azure), and follows a change of it; a VNet without one gives a NIC its
// own public IP, none without; a Connected peering shows on both VNets
// with the other's address space, and goes when removed.
func TestRouting(t *testing.T) {
	f := newFixture(t, 3, azureemu.Options{})
	add := func(vnet, name string, public bool) string {
		t.Helper()
		vm, err := f.emu.AddVM(azureemu.VMSpec{VNetID: vnet, Name: name, PublicIP: public})
		if err != nil {
			t.Fatal(err)
		}
		return vm.ID
	}
	behind, public, isolated := add(f.vnets[0], "behind", true), add(f.vnets[1], "public", true), add(f.vnets[1], "isolated", false)
	nat, err := f.emu.AddNATGateway(f.vnets[0], "nat-1", "198.51.100.7")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.emu.AddVNetPeering(f.vnets[0], f.vnets[2]); err != nil {
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
		for _, id := range []string{behind, public, isolated} {
			vm, _ := snap.VM(id)
			out += fmt.Sprintf("%s:%v@%v ", vm.Name, vm.NICs[0].EgressIPs, vm.NICs[0].NATGatewayID != "")
		}
		for _, v := range snap.VPCs {
			for _, peer := range v.Peerings {
				out += fmt.Sprintf("%s->%v%v ", v.Name, peer.PeerVPCID == f.vnets[0] || peer.PeerVPCID == f.vnets[2], peer.PeerCIDRs)
			}
		}
		return out
	}
	got := read()
	snap, _ := p.Inventory(t.Context(), region)
	pub, _ := snap.VM(public)
	want := fmt.Sprintf("behind:[198.51.100.7]@true public:[%s]@false isolated:[]@false vnet-0->true[10.2.0.0/16] vnet-2->true[10.0.0.0/16] ", pub.NICs[0].PublicIPs[0])
	if got != want {
		t.Errorf("egress and peerings:\n got %s\nwant %s", got, want)
	}
	if err := f.emu.SetNATGatewayAddress(nat, "198.51.100.8"); err != nil {
		t.Fatal(err)
	}
	f.emu.RemoveVNetPeering(f.vnets[0], f.vnets[2])
	want = fmt.Sprintf("behind:[198.51.100.8]@true public:[%s]@false isolated:[]@false ", pub.NICs[0].PublicIPs[0])
	if got := read(); got != want {
		t.Errorf("after the NAT gateway's new address and the peering's removal:\n got %s\nwant %s", got, want)
	}
}
