package policydistribution

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// probeBroker hands live probes to the agents that take them (a long poll
// of wire.PathProbes) and their results back to whoever asked.
type probeBroker struct {
	mu sync.Mutex
	// pending are the probes not taken yet, by VM; wake is closed (and
	// replaced) when one is added.
	pending map[types.NamespacedName][]wire.ProbeRequest
	wake    map[types.NamespacedName]chan struct{}
	// onTaken are told when their probe is taken, by probe ID.
	onTaken map[string]func()
	// waiting are the askers, by probe ID, and the VM each probe was asked of.
	waiting map[string]chan wire.ProbeResult
	askedOf map[string]types.NamespacedName
}

func newProbeBroker() *probeBroker {
	return &probeBroker{pending: map[types.NamespacedName][]wire.ProbeRequest{}, wake: map[types.NamespacedName]chan struct{}{},
		waiting: map[string]chan wire.ProbeResult{}, askedOf: map[string]types.NamespacedName{}, onTaken: map[string]func(){}}
}

func (b *probeBroker) wakeChan(vm types.NamespacedName) chan struct{} {
	ch := b.wake[vm]
	if ch == nil {
		ch = make(chan struct{})
		b.wake[vm] = ch
	}
	return ch
}

// ErrProbeTimeout: the agent did not answer the probe in time (it is not
// connected, or too old to take probes).
var ErrProbeTimeout = errors.New("the VM's agent did not answer the probe")

// Probe asks the agent of vm to take part in a live trace and waits for its
// result until ctx ends. onTaken, when not nil, is called once the agent
// has taken the probe (a Watch is then in place).
func (s *Server) Probe(ctx context.Context, vm types.NamespacedName, req wire.ProbeRequest, onTaken func()) (wire.ProbeResult, error) {
	if req.ID == "" {
		return wire.ProbeResult{}, errors.New("a probe needs an ID")
	}
	b := s.probes
	result := make(chan wire.ProbeResult, 1)
	b.mu.Lock()
	if _, dup := b.waiting[req.ID]; dup {
		b.mu.Unlock()
		return wire.ProbeResult{}, fmt.Errorf("probe %s is already asked", req.ID)
	}
	b.waiting[req.ID], b.askedOf[req.ID] = result, vm
	if onTaken != nil {
		b.onTaken[req.ID] = onTaken
	}
	b.pending[vm] = append(b.pending[vm], req)
	close(b.wakeChan(vm))
	delete(b.wake, vm)
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.waiting, req.ID)
		delete(b.askedOf, req.ID)
		delete(b.onTaken, req.ID)
		left := b.pending[vm][:0]
		for _, p := range b.pending[vm] {
			if p.ID != req.ID {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			delete(b.pending, vm)
		} else {
			b.pending[vm] = left
		}
		b.mu.Unlock()
	}()
	select {
	case res := <-result:
		return res, nil
	case <-ctx.Done():
		return wire.ProbeResult{}, fmt.Errorf("%w (VirtualMachine %s): %w", ErrProbeTimeout, vm, ctx.Err())
	}
}

// take returns the probes pending for vm, waiting up to wait for one.
func (b *probeBroker) take(ctx context.Context, vm types.NamespacedName, wait time.Duration) []wire.ProbeRequest {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		b.mu.Lock()
		if reqs := b.pending[vm]; len(reqs) > 0 {
			delete(b.pending, vm)
			var taken []func()
			for _, r := range reqs {
				if f := b.onTaken[r.ID]; f != nil {
					taken = append(taken, f)
					delete(b.onTaken, r.ID)
				}
			}
			b.mu.Unlock()
			for _, f := range taken {
				f()
			}
			return reqs
		}
		wake := b.wakeChan(vm)
		b.mu.Unlock()
		select {
		case <-wake:
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

// deliver hands an agent's result to its asker; false when no probe of
// that ID was asked of that VM (or its asker gave up).
func (b *probeBroker) deliver(vm types.NamespacedName, res wire.ProbeResult) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch, ok := b.waiting[res.ID]
	if !ok || b.askedOf[res.ID] != vm {
		return false
	}
	select {
	case ch <- res:
	default:
	}
	return true
}

// serveProbes: an agent takes its pending probes (GET) or answers one (POST).
func (s *Server) serveProbes(w http.ResponseWriter, r *http.Request) {
	id, _, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	if id.Kind != IdentityAgent {
		writeError(w, http.StatusForbidden, "only VM agents take probes")
		return
	}
	if r.Method == http.MethodGet {
		reqs := s.probes.take(r.Context(), id.VirtualMachine, s.opts.ProbeWait)
		if reqs == nil {
			reqs = []wire.ProbeRequest{}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(reqs)
		return
	}
	var res wire.ProbeResult
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&res); err != nil {
		writeError(w, http.StatusBadRequest, "decoding the probe result: "+err.Error())
		return
	}
	if !s.probes.deliver(id.VirtualMachine, res) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no probe %q is waiting for VirtualMachine %s", res.ID, id.VirtualMachine))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte("{}\n"))
}
