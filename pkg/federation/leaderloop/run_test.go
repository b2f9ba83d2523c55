package leaderloop

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/testutil"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"antreaplus.io/antreaplus/pkg/federation/budget"
	"antreaplus.io/antreaplus/pkg/federation/election"
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

// stallingLease is a leader Lease in memory whose requests wait while it
// is stalled, as on a starved API server.
type stallingLease struct {
	mu    sync.Mutex
	l     *coordinationv1.Lease
	rv    int
	until atomic.Int64 // unix nanoseconds
}

func (s *stallingLease) wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Until(time.Unix(0, s.until.Load()))):
		return nil
	}
}

var leases = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

func (s *stallingLease) Get(ctx context.Context) (*coordinationv1.Lease, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.l == nil {
		return nil, apierrors.NewNotFound(leases, "leader")
	}
	return s.l.DeepCopy(), nil
}

func (s *stallingLease) Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	return s.write(ctx, l, true)
}

func (s *stallingLease) Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	return s.write(ctx, l, false)
}

func (s *stallingLease) write(ctx context.Context, l *coordinationv1.Lease, create bool) (*coordinationv1.Lease, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case create && s.l != nil:
		return nil, apierrors.NewAlreadyExists(leases, "leader")
	case !create && (s.l == nil || l.ResourceVersion != s.l.ResourceVersion):
		return nil, apierrors.NewConflict(leases, "leader", nil)
	}
	s.rv++
	s.l = l.DeepCopy()
	s.l.ResourceVersion = strconv.Itoa(s.rv)
	return s.l.DeepCopy(), nil
}

// onlyMe is a federation of one supervisor, "s".
type onlyMe struct{}

func (onlyMe) Rank(string) (int, string) { return 0, "s" }
func (onlyMe) Alive(string) bool         { return true }

// TestRunReconcilesEverythingAfterALateRenewal: the Lease's requests stall
// for 6 s, past the renew deadline (4 s): the loop's writes are fenced
// meanwhile, and not retried; the leadership is kept (the loop runs on),
// and once the late renewal opens the Fence again every key is enqueued,
// so that what was fenced is written.
func TestRunReconcilesEverythingAfterALateRenewal(t *testing.T) {
	h := newHarness(map[string][]error{"a": nil, "b": nil})
	lease := &stallingLease{}
	var led atomic.Int32
	var e *election.Elector
	e = election.New(election.DefaultConfig(), "s", "m1", lease, onlyMe{}, func(ctx context.Context, term int32) {
		led.Add(1)
		h.mu.Lock()
		h.loop.m = manager.Member{ClusterID: "m1", Term: term, Fence: e.Fence()}
		h.mu.Unlock()
		if err := h.loop.Run(ctx, h.hooks(func(context.Context) error { return nil })); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Run(ctx)
	}()
	defer func() { cancel(); <-done }()
	enqueues := func() int {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.enqueues
	}
	deadline := time.Now().Add(5 * time.Second)
	for enqueues() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if enqueues() != 1 {
		t.Fatalf("%d EnqueueAll after leading; want 1", enqueues())
	}
	lease.until.Store(time.Now().Add(6 * time.Second).UnixNano())
	deadline = time.Now().Add(10 * time.Second)
	for enqueues() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n, r := enqueues(), e.Fence().Resumes(); n != 2 || r != 1 {
		t.Errorf("after a renewal 6 s late: %d EnqueueAll, %d resumes; want 2 (start, resume), 1", n, r)
	}
	if n := led.Load(); n != 1 {
		t.Errorf("led %d times; want once (the leadership kept through the late renewal)", n)
	}
}
