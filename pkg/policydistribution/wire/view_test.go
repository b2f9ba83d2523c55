package wire

import (
	"errors"
	"net/netip"
	"slices"
	"testing"

	"antreaplus.io/antreaplus/pkg/policyrules"
)

func compiledRule(port int32, action policyrules.Action) policyrules.CompiledRule {
	return policyrules.CompiledRule{
		Direction: policyrules.DirectionIngress, Action: action, Tier: "application",
		Priority: policyrules.Priority{Tier: 250, Policy: 1, RuleIndex: port},
		Policy:   policyrules.PolicyRef{Kind: policyrules.KindClusterNetworkPolicy, Name: "p"},
		Peers:    []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24")},
		Ports:    []policyrules.Port{{Protocol: policyrules.ProtocolTCP, Port: port, EndPort: port}},
	}
}

func endpoint(name string, ports ...int32) Endpoint {
	rules := policyrules.EndpointRules{Endpoint: name, ExternalNode: "vm", Hash: "h"}
	for _, p := range ports {
		rules.Rules = append(rules.Rules, compiledRule(p, policyrules.ActionAllow))
	}
	rules.Hash = string(rune('a' + len(ports)))
	return NewEndpoint(rules, []netip.Addr{netip.MustParseAddr("10.0.1.1")})
}

func TestRuleIDIsContentAddress(t *testing.T) {
	a, b := FromCompiled(ptr(compiledRule(80, policyrules.ActionAllow))), FromCompiled(ptr(compiledRule(80, policyrules.ActionAllow)))
	if a.ID() != b.ID() {
		t.Errorf("equal rules have IDs %s and %s", a.ID(), b.ID())
	}
	c := FromCompiled(ptr(compiledRule(80, policyrules.ActionDrop)))
	if a.ID() == c.ID() {
		t.Errorf("different rules share ID %s", a.ID())
	}
	back := a.ToCompiled()
	if back.Action != policyrules.ActionAllow || back.Priority.RuleIndex != 80 || back.Ports[0].Port != 80 {
		t.Errorf("round trip lost fields: %+v", back)
	}
}

func ptr[T any](v T) *T { return &v }

func TestViewAppliesSyncUpdatesAndDeltas(t *testing.T) {
	a1, b1 := endpoint("ns/a", 80, 81), endpoint("ns/b", 90)
	view, err := (*View)(nil).Apply(&Event{Type: EventSync, Scope: "ns/vm", Epoch: "e", Generation: 10, Endpoints: []Endpoint{a1, b1}})
	if err != nil {
		t.Fatal(err)
	}
	if got := view.Names(); !slices.Equal(got, []string{"ns/a", "ns/b"}) || view.RuleCount() != 3 || view.Scope != "ns/vm" {
		t.Fatalf("after sync: %v, %d rules", got, view.RuleCount())
	}
	// a gains port 82: the update carries that rule's body only.
	a2 := endpoint("ns/a", 80, 81, 82)
	delta := a2.Delta(&a1)
	if len(delta.Rules) != 1 || len(delta.Order) != 3 {
		t.Fatalf("delta carries %d bodies for %d rules; want 1 for 3", len(delta.Rules), len(delta.Order))
	}
	next, err := view.Apply(&Event{Type: EventUpdate, Epoch: "e", Generation: 11, Endpoints: []Endpoint{delta}, Deleted: []string{"ns/b"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := next.Names(); !slices.Equal(got, []string{"ns/a"}) || next.RuleCount() != 3 || next.Generation != 11 {
		t.Fatalf("after update: %v, %d rules, generation %d", got, next.RuleCount(), next.Generation)
	}
	if len(next.Endpoints["ns/a"].RuleList()) != 3 || len(next.Endpoints["ns/a"].CompiledRules()) != 3 {
		t.Error("rule lists are incomplete")
	}
	if view.RuleCount() != 3 || len(view.Endpoints) != 2 {
		t.Error("Apply modified the old view")
	}
	// The same endpoint twice in one event: the second delta builds on the first.
	a3 := endpoint("ns/a", 80, 81, 82, 83)
	twice, err := view.Apply(&Event{Type: EventUpdate, Epoch: "e", Generation: 12, Endpoints: []Endpoint{delta, a3.Delta(&a2)}})
	if err != nil || twice.RuleCount() != 5 {
		t.Fatalf("two deltas of one endpoint: %v, %d rules", err, twice.RuleCount())
	}
}

func TestViewRefusesEventsThatDoNotFollow(t *testing.T) {
	a1 := endpoint("ns/a", 80)
	view, _ := (*View)(nil).Apply(&Event{Type: EventSync, Epoch: "e", Generation: 10, Endpoints: []Endpoint{a1}})
	a2 := endpoint("ns/a", 80, 81)
	missing := a2.Delta(&a1)
	missing.Rules = nil
	for name, ev := range map[string]*Event{
		"other epoch":        {Type: EventUpdate, Epoch: "f", Generation: 11},
		"older generation":   {Type: EventUpdate, Epoch: "e", Generation: 10},
		"missing rule body":  {Type: EventUpdate, Epoch: "e", Generation: 11, Endpoints: []Endpoint{missing}},
		"bookmark of other":  {Type: EventBookmark, Epoch: "f", Generation: 12},
		"unknown event type": {Type: "Bogus", Epoch: "e", Generation: 12},
	} {
		if _, err := view.Apply(ev); !errors.Is(err, ErrResync) {
			t.Errorf("%s: err = %v, want ErrResync", name, err)
		}
	}
	if _, err := (*View)(nil).Apply(&Event{Type: EventUpdate, Epoch: "e", Generation: 11}); !errors.Is(err, ErrResync) {
		t.Errorf("update without a view: err = %v, want ErrResync", err)
	}
	if same, err := view.Apply(&Event{Type: EventBookmark, Epoch: "e", Generation: 99}); err != nil || same != view {
		t.Errorf("bookmark changed the view: %v", err)
	}
}
