package wire_test

import (
	"errors"
	"fmt"
	"net/netip"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// rules are the compiled rules of endpoint shop/db: an Allow from 10.0.0.5
// on 5432, and, when more is true, a Drop of everything else.
func rules(generation uint64, more bool) policyrules.EndpointRules {
	policy := policyrules.PolicyRef{Kind: policyrules.KindClusterNetworkPolicy, Name: "db"}
	r := []policyrules.CompiledRule{{Direction: policyrules.DirectionIngress, Action: policyrules.ActionAllow,
		Priority: policyrules.Priority{Tier: 100, Policy: 5}, Tier: policyrules.TierSecurityOps, Policy: policy, RuleName: "from-web",
		Peers: []netip.Prefix{netip.MustParsePrefix("10.0.0.5/32")},
		Ports: []policyrules.Port{{Protocol: policyrules.ProtocolTCP, Port: 5432}}}}
	if more {
		r = append(r, policyrules.CompiledRule{Direction: policyrules.DirectionIngress, Action: policyrules.ActionDrop,
			Priority: policyrules.Priority{Tier: 100, Policy: 5, RuleIndex: 1}, Tier: policyrules.TierSecurityOps, Policy: policy,
			RuleName: "rest", AnyPeer: true})
	}
	return policyrules.EndpointRules{Endpoint: "shop/db", ExternalNode: "vm-db", Rules: r,
		Hash: fmt.Sprint("h", generation), Generation: generation}
}

// The server sends a Sync with every rule body, then Updates with only the
// bodies an endpoint did not have; the client applies them to its View,
// and watches again from scratch when an event does not follow it.
func ExampleView_Apply() {
	addrs := []netip.Addr{netip.MustParseAddr("10.0.0.7")}
	v1 := wire.NewEndpoint(rules(1, false), addrs)
	v2 := wire.NewEndpoint(rules(2, true), addrs)
	delta := v2.Delta(&v1) // what an Update carries

	var view *wire.View // nil: nothing yet; the first event must be a Sync
	for _, ev := range []wire.Event{
		{Type: wire.EventSync, Epoch: "e1", Generation: 1, Scope: "shop/vm-db", Endpoints: []wire.Endpoint{v1}},
		{Type: wire.EventUpdate, Epoch: "e1", Generation: 2, Endpoints: []wire.Endpoint{delta}},
		{Type: wire.EventBookmark, Epoch: "e1", Generation: 2},
		{Type: wire.EventUpdate, Epoch: "e2", Generation: 3}, // another server instance
	} {
		next, err := view.Apply(&ev)
		if errors.Is(err, wire.ErrResync) {
			fmt.Println(ev.Type, "-> resync: watch again without epoch and generation")
			continue
		}
		view = next
		for _, name := range view.Names() {
			ep := view.Endpoints[name]
			fmt.Printf("%s: %s at generation %d, %d rules\n", ev.Type, name, view.Generation, len(ep.RuleList()))
		}
	}
	fmt.Println("bodies in the Update:", len(delta.Rules), "of", len(v2.Rules))
	// Output:
	// Sync: shop/db at generation 1, 1 rules
	// Update: shop/db at generation 2, 2 rules
	// Bookmark: shop/db at generation 2, 2 rules
	// Update -> resync: watch again without epoch and generation
	// bodies in the Update: 1 of 2
}
