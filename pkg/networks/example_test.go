package networks_test

import (
	"fmt"
	"net/netip"

	"antreaplus.io/antreaplus/pkg/networks"
)

// A remote VM at 10.0.1.5 in member-1's VPC a, behind a NAT gateway, seen
// from member-2's VNet b, whose range is the same 10.0.0.0/16 and which is
// connected to nothing: as a source it arrives with the gateway's address,
// as a destination nothing here reaches it.
func ExampleView() {
	topo := networks.NewTopology([]networks.Network{{Name: "azure.vnet-b", Prefixes: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/16")}}})
	web := networks.Entity{Name: "member-1/shop/web-1", Network: "aws.vpc-a", Addresses: []networks.Address{
		{IP: netip.MustParseAddr("10.0.1.5"), Kind: networks.Private, Network: "aws.vpc-a"},
		{IP: netip.MustParseAddr("198.51.100.7"), Kind: networks.Egress, Via: "nat-0a"},
	}}
	view := topo.View("azure.vnet-b")
	in := view.Decide(&web, networks.Source)
	fmt.Println(in.Addresses, in.Egress[0].Via)
	out := view.Decide(&web, networks.Destination)
	fmt.Println(out.Addresses, out.Reason())
	// Output:
	// [198.51.100.7] nat-0a
	// [] member-1/shop/web-1 is in network aws.vpc-a, which is not connected to network azure.vnet-b, and has no public address: nothing here reaches it; give it a public IP, or declare the peering (a flat connection in a Network)
}
