package policydistribution

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"testing"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// endpointWith builds the full wire endpoint of name with one Allow rule
// per TCP port.
func endpointWith(name string, ports ...int32) *wire.Endpoint {
	rules := policyrules.EndpointRules{Endpoint: name, Hash: name}
	for _, p := range ports {
		rules.Hash += fmt.Sprintf(",%d", p)
		rules.Rules = append(rules.Rules, policyrules.CompiledRule{
			Direction: policyrules.DirectionIngress, Action: policyrules.ActionAllow, Tier: "application",
			Priority: policyrules.Priority{Tier: 250, RuleIndex: p}, AnyPeer: true,
			Ports: []policyrules.Port{{Protocol: policyrules.ProtocolTCP, Port: p, EndPort: p}},
		})
	}
	ep := wire.NewEndpoint(rules, []netip.Addr{netip.MustParseAddr("10.0.0.1")})
	return &ep
}

func readyHub() *Hub {
	h := NewHub()
	h.SetReady()
	return h
}

// drain returns what a watcher has to say now.
func drain(t *testing.T, w *Watcher) []wire.Event {
	t.Helper()
	select {
	case <-w.Wake():
	default:
	}
	return w.Next()
}

func eventTypes(evs []wire.Event) []wire.EventType {
	var out []wire.EventType
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

func TestHubServesOnlyWhenReady(t *testing.T) {
	h := NewHub()
	if _, _, err := h.Watch(Scope{Namespace: "ns", Node: "vm"}, "", 0); !errors.Is(err, ErrNotReady) {
		t.Fatalf("Watch before SetReady: %v, want ErrNotReady", err)
	}
	h.SetReady()
	w, resumed, err := h.Watch(Scope{Namespace: "ns", Node: "vm"}, "", 0)
	if err != nil || resumed {
		t.Fatalf("Watch: %v, resumed %v", err, resumed)
	}
	defer w.Stop()
	if evs := drain(t, w); len(evs) != 1 || evs[0].Type != wire.EventSync || len(evs[0].Endpoints) != 0 || evs[0].Scope != "ns/vm" {
		t.Fatalf("first events of an empty scope: %+v", evs)
	}
}

func TestHubScopesEndpointsByNodeAndNamespace(t *testing.T) {
	h := readyHub()
	h.Publish([]Update{
		{Endpoint: "a/nic-1", Node: "vm", Rules: endpointWith("a/nic-1", 80)},
		{Endpoint: "b/nic-1", Node: "vm", Rules: endpointWith("b/nic-1", 81)},
		{Endpoint: "a/nic-2", Node: "other", Rules: endpointWith("a/nic-2", 82)},
		{Endpoint: "a/svc", Node: "cc", Rules: endpointWith("a/svc", 83)},
		{Endpoint: "b/svc", Node: "cc", Rules: endpointWith("b/svc", 84)},
	})
	for scope, want := range map[Scope][]string{
		{Namespace: "a", Node: "vm"}: {"a/nic-1"},
		{Namespace: "b", Node: "vm"}: {"b/nic-1"},
		{Node: "cc"}:                 {"a/svc", "b/svc"},
		{Namespace: "a", Node: "cc"}: {"a/svc"},
		{Namespace: "c", Node: "vm"}: nil,
	} {
		w, _, _ := h.Watch(scope, "", 0)
		evs := drain(t, w)
		var got []string
		for _, ep := range evs[0].Endpoints {
			got = append(got, ep.Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("scope %s: %v, want %v", scope, got, want)
		}
		w.Stop()
	}
}

func TestHubSendsDeltasAndResumes(t *testing.T) {
	h := readyHub()
	scope := Scope{Namespace: "ns", Node: "vm"}
	// nic2 stays: a node that holds nothing and nobody watches is
	// forgotten, and can then only Sync.
	g1 := h.Publish([]Update{{Endpoint: "ns/nic", Node: "vm", Rules: endpointWith("ns/nic", 80, 81)},
		{Endpoint: "ns/nic2", Node: "vm", Rules: endpointWith("ns/nic2", 90)}})
	w, _, _ := h.Watch(scope, "", 0)
	sync := drain(t, w)
	if len(sync) != 1 || sync[0].Generation != g1 {
		t.Fatalf("sync: %+v, want generation %d", sync, g1)
	}
	if h.Publish([]Update{{Endpoint: "ns/nic", Node: "vm", Rules: endpointWith("ns/nic", 80, 81)}}) != 0 {
		t.Error("an unchanged endpoint made a generation")
	}
	g2 := h.Publish([]Update{{Endpoint: "ns/nic", Node: "vm", Rules: endpointWith("ns/nic", 80, 81, 82)}})
	evs := drain(t, w)
	if len(evs) != 1 || evs[0].Type != wire.EventUpdate || evs[0].Generation != g2 || len(evs[0].Endpoints[0].Rules) != 1 {
		t.Fatalf("update: %+v; want one Update at %d with one rule body", evs, g2)
	}
	if bm := w.Bookmark(); bm.Generation != g2 || bm.Epoch != h.Epoch() {
		t.Errorf("bookmark %+v, want generation %d", bm, g2)
	}
	w.Stop()

	// Changes while disconnected, then a resume from g2.
	g3 := h.Publish([]Update{{Endpoint: "ns/nic", Node: "vm", Rules: endpointWith("ns/nic", 80)}})
	g4 := h.Publish([]Update{{Endpoint: "ns/nic"}})
	w, resumed, _ := h.Watch(scope, h.Epoch(), g2)
	defer w.Stop()
	evs = drain(t, w)
	if !resumed || !slices.Equal(eventTypes(evs), []wire.EventType{wire.EventUpdate, wire.EventUpdate}) ||
		evs[0].Generation != g3 || evs[1].Generation != g4 || !slices.Equal(evs[1].Deleted, []string{"ns/nic"}) {
		t.Fatalf("resume from %d: resumed %v, %+v", g2, resumed, evs)
	}
	// Another epoch cannot resume.
	w2, resumed, _ := h.Watch(scope, "other", g2)
	defer w2.Stop()
	if evs := drain(t, w2); resumed || evs[0].Type != wire.EventSync || len(evs[0].Endpoints) != 1 {
		t.Errorf("resume from another epoch: resumed %v, %+v", resumed, evs)
	}
	if gen, _ := h.ScopeGeneration(scope); gen != g4 {
		t.Errorf("ScopeGeneration = %d, want %d", gen, g4)
	}
	if _, ok := h.PublishedAt("vm", g3); !ok {
		t.Error("PublishedAt does not know a generation in history")
	}
}

func TestHubSyncsWatchersThatFallBehind(t *testing.T) {
	h := readyHub()
	h.historyLimit = 4
	scope := Scope{Namespace: "ns", Node: "vm"}
	first := h.Publish([]Update{{Endpoint: "ns/nic", Node: "vm", Rules: endpointWith("ns/nic", 1)}})
	w, _, _ := h.Watch(scope, "", 0)
	defer w.Stop()
	drain(t, w)
	for p := int32(2); p < 12; p++ {
		h.Publish([]Update{{Endpoint: "ns/nic", Node: "vm", Rules: endpointWith("ns/nic", p)}})
	}
	evs := drain(t, w)
	if len(evs) != 1 || evs[0].Type != wire.EventSync || evs[0].Endpoints[0].Order[0] != endpointWith("ns/nic", 11).Order[0] {
		t.Fatalf("a watcher behind the history got %v, want one Sync of the newest rules", eventTypes(evs))
	}
	if _, resumed, _ := h.Watch(scope, h.Epoch(), first); resumed {
		t.Error("resumed from a generation no longer in history")
	}
}

func TestHubMovesEndpointsBetweenNodes(t *testing.T) {
	h := readyHub()
	h.Publish([]Update{{Endpoint: "ns/nic", Node: "vm1", Rules: endpointWith("ns/nic", 80)}})
	w1, _, _ := h.Watch(Scope{Namespace: "ns", Node: "vm1"}, "", 0)
	w2, _, _ := h.Watch(Scope{Namespace: "ns", Node: "vm2"}, "", 0)
	defer w1.Stop()
	defer w2.Stop()
	drain(t, w1)
	drain(t, w2)
	h.Publish([]Update{{Endpoint: "ns/nic", Node: "vm2", Rules: endpointWith("ns/nic", 80)}})
	if evs := drain(t, w1); len(evs) != 1 || !slices.Equal(evs[0].Deleted, []string{"ns/nic"}) {
		t.Errorf("old node: %+v, want the endpoint deleted", evs)
	}
	evs := drain(t, w2)
	if len(evs) != 1 || len(evs[0].Endpoints) != 1 || len(evs[0].Endpoints[0].Rules) != 1 {
		t.Errorf("new node: %+v, want the endpoint with every rule body", evs)
	}
}
