package policydistribution

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// TestProbeBroker: a probe goes to the agent of its VM only, its result
// back to its asker only, and an asker that gives up is told why.
func TestProbeBroker(t *testing.T) {
	s := NewServer(NewHub(), ServerOptions{})
	vm, other := types.NamespacedName{Namespace: "ns", Name: "vm"}, types.NamespacedName{Namespace: "ns", Name: "other"}
	got := make(chan wire.ProbeResult, 1)
	taken := make(chan struct{})
	go func() {
		res, err := s.Probe(t.Context(), vm, wire.ProbeRequest{ID: "p1", Role: wire.ProbeWatch}, func() { close(taken) })
		if err != nil {
			res.Error = err.Error()
		}
		got <- res
	}()
	if reqs := s.probes.take(t.Context(), other, 50*time.Millisecond); len(reqs) != 0 {
		t.Fatalf("another VM's agent took %v", reqs)
	}
	reqs := s.probes.take(t.Context(), vm, 5*time.Second)
	if len(reqs) != 1 || reqs[0].ID != "p1" {
		t.Fatalf("the VM's agent took %v, want probe p1", reqs)
	}
	select {
	case <-taken:
	default:
		t.Fatal("the asker was not told the probe was taken")
	}
	if s.probes.deliver(other, wire.ProbeResult{ID: "p1"}) {
		t.Fatal("another VM's agent answered the probe")
	}
	if !s.probes.deliver(vm, wire.ProbeResult{ID: "p1", Observation: wire.Observation{Verdict: wire.ObservedDropped}}) {
		t.Fatal("the VM's agent could not answer")
	}
	if res := <-got; res.Observation.Verdict != wire.ObservedDropped {
		t.Fatalf("the asker got %+v", res)
	}
	if s.probes.deliver(vm, wire.ProbeResult{ID: "p1"}) {
		t.Fatal("a probe was answered twice")
	}

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := s.Probe(ctx, vm, wire.ProbeRequest{ID: "p2"}, nil); !errors.Is(err, ErrProbeTimeout) {
		t.Fatalf("an unanswered probe: %v, want ErrProbeTimeout", err)
	}
	if reqs := s.probes.take(t.Context(), vm, 10*time.Millisecond); len(reqs) != 0 {
		t.Fatalf("a probe whose asker gave up is still pending: %v", reqs)
	}
}
