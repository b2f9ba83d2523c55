package leaderloop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"antreaplus.io/antreaplus/pkg/federation/budget"
	"antreaplus.io/antreaplus/pkg/federation/manager"
)

// fakeSources changes state when told to.
type fakeSources struct{ changed atomic.Bool }

func (s *fakeSources) Refresh(context.Context) bool                  { return s.changed.Swap(false) }
func (s *fakeSources) WaitForSources(context.Context, time.Duration) {}

// harness runs a loop whose reconciles return what results says per key.
type harness struct {
	loop    *Loop[string]
	sources *fakeSources

	mu       sync.Mutex
	results  map[string][]error
	attempts map[string]int
	enqueues int
}

// harnesses numbers the harnesses: each counts in metrics of its own
// controller label.
var harnesses atomic.Int32

func newHarness(results map[string][]error) *harness {
	name := fmt.Sprintf("test-%d", harnesses.Add(1))
	return &harness{
		loop: &Loop[string]{Queue: newQueue[string](name + "-m1"), Log: logr.Discard(), m: manager.Member{ClusterID: "m1"},
			Metrics: MetricsFor(name), opts: Options{Workers: 2, Period: 10 * time.Millisecond, Resync: time.Hour}},
		sources: &fakeSources{},
		results: results, attempts: map[string]int{},
	}
}

func (h *harness) reconcile(_ context.Context, k string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.attempts[k]
	h.attempts[k]++
	if rs := h.results[k]; n < len(rs) {
		return rs[n]
	}
	return nil
}

func (h *harness) enqueueAll(context.Context) {
	h.mu.Lock()
	h.enqueues++
	h.mu.Unlock()
	for k := range h.results {
		h.loop.Queue.Add(k)
	}
}

func (h *harness) hooks(start func(context.Context) error) Hooks[string] {
	return Hooks[string]{Doing: "Testing", Start: start, Sources: h.sources, EnqueueAll: h.enqueueAll,
		Reconcile: h.reconcile, LogValues: func(k string) []any { return []any{"key", k} }}
}

func (h *harness) count(result string) float64 {
	return testutil.ToFloat64(h.loop.Metrics.Reconciles.WithLabelValues("m1", result))
}

func (h *harness) eventually(t *testing.T, what func() error) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for err := what(); err != nil; err = what() {
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestRun: every key is reconciled at start; a failure is retried, a fenced
// reconcile is not; a member changing state enqueues every key again; Run
// returns nil once ctx ends.
func TestRun(t *testing.T) {
	h := newHarness(map[string][]error{
		"ok":     nil,
		"flaky":  {errors.New("boom"), fmt.Errorf("write: %w", errors.New("again"))},
		"fenced": {fmt.Errorf("create: %w", ErrFenced)},
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- h.loop.Run(ctx, h.hooks(func(context.Context) error { return nil })) }()

	h.eventually(t, func() error {
		if ok, failed, fenced := h.count("ok"), h.count("error"), h.count("fenced"); ok != 2 || failed != 2 || fenced != 1 {
			return fmt.Errorf("ok=%v error=%v fenced=%v, want 2 2 1", ok, failed, fenced)
		}
		return nil
	})
	h.sources.changed.Store(true)
	h.eventually(t, func() error {
		if ok := h.count("ok"); ok != 5 {
			return fmt.Errorf("after a change of state: ok=%v, want 5", ok)
		}
		return nil
	})
	if n := testutil.CollectAndCount(h.loop.Metrics.ReconcileSeconds); n != 1 {
		t.Errorf("%d histogram series, want 1 (member m1)", n)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after ctx ended")
	}
	if !h.loop.Queue.ShuttingDown() {
		t.Error("the queue is not shut down")
	}
	if h.enqueues != 2 {
		t.Errorf("%d EnqueueAll, want 2 (start, change of state)", h.enqueues)
	}
}

// TestRunStartFails: an error of Start ends Run at once, the queue shut down.
func TestRunStartFails(t *testing.T) {
	h := newHarness(map[string][]error{"ok": nil})
	boom := errors.New("boom")
	if err := h.loop.Run(t.Context(), h.hooks(func(context.Context) error { return boom })); !errors.Is(err, boom) {
		t.Fatalf("Run: %v, want %v", err, boom)
	}
	if !h.loop.Queue.ShuttingDown() || h.enqueues != 0 {
		t.Errorf("shut down %v, %d EnqueueAll: want true, 0", h.loop.Queue.ShuttingDown(), h.enqueues)
	}
}

// TestLoopsShareTheBudget: two loops (two members led) with four workers
// each and a supervisor budget of one never reconcile two keys at once,
// and every key is reconciled.
func TestLoopsShareTheBudget(t *testing.T) {
	b := budget.New(budget.Config{Limit: 1, Floor: 1, LateAfter: time.Second})
	var now, peak, total atomic.Int32
	keys := map[string][]error{}
	for i := range 20 {
		keys[fmt.Sprintf("k%d", i)] = nil
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var wg sync.WaitGroup
	for _, id := range []string{"m1", "m2"} {
		h := newHarness(keys)
		h.loop.m = manager.Member{ClusterID: id, Budget: b}
		h.loop.opts.Workers = 4
		hooks := h.hooks(func(context.Context) error { return nil })
		hooks.Reconcile = func(context.Context, string) error {
			n := now.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(time.Millisecond)
			now.Add(-1)
			total.Add(1)
			return nil
		}
		wg.Go(func() {
			if err := h.loop.Run(ctx, hooks); err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for total.Load() < 40 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	if total.Load() < 40 || peak.Load() != 1 {
		t.Errorf("%d of 40 keys reconciled, at most %d at once; want all, one at a time", total.Load(), peak.Load())
	}
}
