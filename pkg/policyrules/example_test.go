package policyrules_test

import (
	"fmt"
	"net/netip"

	"antreaplus.io/antreaplus/pkg/policyrules"
)

// A Pass in the security-ops tier skips the application tier's Drop; the
// baseline tier decides, then DefaultAction.
func ExampleEvaluate() {
	rules := []policyrules.CompiledRule{
		{
			Direction: policyrules.DirectionIngress, Action: policyrules.ActionPass,
			Tier: policyrules.TierSecurityOps, Priority: policyrules.Priority{Tier: 100},
			Peers: []netip.Prefix{netip.MustParsePrefix("10.0.1.0/24")},
		},
		{
			Direction: policyrules.DirectionIngress, Action: policyrules.ActionDrop,
			Tier: policyrules.TierApplication, Priority: policyrules.Priority{Tier: 250},
			AnyPeer: true,
			Ports:   []policyrules.Port{{Protocol: policyrules.ProtocolTCP, Port: 22, EndPort: 22}},
		},
	}
	for _, peer := range []string{"10.0.0.1", "10.0.1.1"} {
		d := policyrules.Evaluate(rules, policyrules.Packet{
			Direction: policyrules.DirectionIngress, Peer: netip.MustParseAddr(peer),
			Protocol: policyrules.ProtocolTCP, Port: 22,
		})
		fmt.Printf("from %s: %s (passed %v)\n", peer, d.Action, d.Passed)
	}
	// Output:
	// from 10.0.0.1: Drop (passed false)
	// from 10.0.1.1: Allow (passed true)
}
