package outage

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// Timings of the tests: probes every 5 ms, renewal after 150 ms of outage.
const (
	period    = 5 * time.Millisecond
	minOutage = 150 * time.Millisecond
	// settle is long enough for many probes, and for a generation to start.
	settle = 300 * time.Millisecond
)

var errDown = errors.New("connection refused")

// server is an API server the test turns off and on.
type server struct {
	down atomic.Bool
	// failedAt is when a probe first failed in the current outage (Unix
	// nanoseconds; 0 before one has).
	failedAt atomic.Int64
}

func (s *server) probe(ctx context.Context) error {
	if s.down.Load() {
		s.failedAt.CompareAndSwap(0, time.Now().UnixNano())
		return errDown
	}
	return ctx.Err()
}

// outage makes the server unreachable for d as the Renewer sees it: from
// its first failed probe, so that a test process starved of CPU (CI runs
// many packages at once on two cores) cannot sleep through the outage and
// never probe while the server is down. It gives up after 5 s.
func (s *server) outage(d time.Duration) {
	s.failedAt.Store(0)
	s.down.Store(true)
	defer s.down.Store(false)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if at := s.failedAt.Load(); at != 0 && time.Since(time.Unix(0, at)) >= d {
			return
		}
	}
}

// component records the generations a Renewer runs.
type component struct {
	started chan Generation
	live    atomic.Int32
	// fail, when set, is what the generation of that number returns at once.
	fail map[int]error
}

func newComponent() *component {
	return &component{started: make(chan Generation, 16), fail: map[int]error{}}
}

func (c *component) run(ctx context.Context, g Generation) error {
	c.live.Add(1)
	defer c.live.Add(-1)
	c.started <- g
	if err, ok := c.fail[g.N]; ok {
		return err
	}
	<-ctx.Done()
	return ctx.Err()
}

// next waits for the next generation to start.
func (c *component) next(t *testing.T) Generation {
	t.Helper()
	select {
	case g := <-c.started:
		return g
	case <-time.After(5 * time.Second):
		t.Fatal("no generation started within 5 s")
		return Generation{}
	}
}

// none checks that no generation starts within settle.
func (c *component) none(t *testing.T) {
	t.Helper()
	select {
	case g := <-c.started:
		t.Fatalf("generation %d started (after an outage of %s); want none", g.N, g.Outage)
	case <-time.After(settle):
	}
}

// running is a Renewer run in the background.
type running struct {
	cancel context.CancelFunc
	done   chan error
}

func start(t *testing.T, s *server, c *component) *running {
	t.Helper()
	return startWith(t, s, c, nil)
}

// startWith runs a Renewer whose Broken is broken.
func startWith(t *testing.T, s *server, c *component, broken func(time.Time) bool) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	r := Renewer{Component: t.Name(), Probe: s.probe, Period: period, Min: minOutage, Broken: broken}
	run := &running{cancel: cancel, done: make(chan error, 1)}
	go func() { run.done <- r.Run(ctx, c.run) }()
	t.Cleanup(func() {
		cancel()
		_ = run.wait(t)
	})
	return run
}

func (r *running) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-r.done:
		r.done <- err // a second wait (the clean-up) returns at once
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5 s")
		return nil
	}
}

func renewalsOf(t *testing.T) float64 {
	t.Helper()
	return testutil.ToFloat64(renewals.WithLabelValues(t.Name()))
}

func TestFirstGenerationStartsAtOnce(t *testing.T) {
	s, c := &server{}, newComponent()
	s.down.Store(true) // it does not wait for the server
	start(t, s, c)
	if g := c.next(t); g != (Generation{}) {
		t.Fatalf("first generation %+v, want %+v", g, Generation{})
	}
}

func TestShortOutageDoesNotRenew(t *testing.T) {
	s, c := &server{}, newComponent()
	before := renewalsOf(t)
	start(t, s, c)
	c.next(t)
	s.outage(minOutage / 5)
	c.none(t)
	if n := renewalsOf(t) - before; n != 0 {
		t.Fatalf("renewals counted %v, want 0", n)
	}
}

func TestLongOutageRenewsOnce(t *testing.T) {
	s, c := &server{}, newComponent()
	before := renewalsOf(t)
	start(t, s, c)
	c.next(t)
	s.outage(2 * minOutage)
	g := c.next(t)
	if g.N != 1 || g.Outage < minOutage || g.Outage > 2*minOutage+settle {
		t.Fatalf("generation after a %s outage: %+v", 2*minOutage, g)
	}
	if n := c.live.Load(); n != 1 {
		t.Fatalf("%d generations run; want the new one alone", n)
	}
	c.none(t)
	if n := renewalsOf(t) - before; n != 1 {
		t.Fatalf("renewals counted %v, want 1", n)
	}
	// A second outage renews again.
	s.outage(2 * minOutage)
	if g := c.next(t); g.N != 2 {
		t.Fatalf("generation after a second outage: %+v", g)
	}
}

// informers stands for a generation's informers: failed is when a list or
// watch of theirs last failed.
type informers struct{ failed atomic.Int64 }

func (i *informers) fail()                        { i.failed.Store(time.Now().UnixNano()) }
func (i *informers) brokenSince(t time.Time) bool { return i.failed.Load() >= t.UnixNano() }

func TestSlowSpellKeepsInformersThatHeld(t *testing.T) {
	s, c, inf := &server{}, newComponent(), &informers{}
	keptBefore := testutil.ToFloat64(kept.WithLabelValues(t.Name()))
	before := renewalsOf(t)
	startWith(t, s, c, inf.brokenSince)
	c.next(t)
	// An informer failure long before the outage is not this outage's.
	inf.fail()
	time.Sleep(settle)
	// Probes fail (a slow server) but the informers do not: kept.
	s.outage(2 * minOutage)
	c.none(t)
	if n := renewalsOf(t) - before; n != 0 {
		t.Fatalf("renewals counted %v, want 0", n)
	}
	if n := testutil.ToFloat64(kept.WithLabelValues(t.Name())) - keptBefore; n != 1 {
		t.Fatalf("outages counted as kept %v, want 1", n)
	}
	// The server goes down and the informers' lists fail: renewed.
	go func() { time.Sleep(minOutage); inf.fail() }()
	s.outage(2 * minOutage)
	if g := c.next(t); g.N != 1 {
		t.Fatalf("generation after an outage that broke the informers: %+v, want number 1", g)
	}
	if n := renewalsOf(t) - before; n != 1 {
		t.Fatalf("renewals counted %v, want 1", n)
	}
}

func TestGenerationErrorEndsRun(t *testing.T) {
	s, c := &server{}, newComponent()
	boom := errors.New("informer failed")
	c.fail[1] = boom
	run := start(t, s, c)
	c.next(t)
	s.outage(2 * minOutage)
	c.next(t)
	if err := run.wait(t); !errors.Is(err, boom) {
		t.Fatalf("Run returned %v, want %v", err, boom)
	}
	c.none(t)
}

func TestGenerationReturningNilIsAnError(t *testing.T) {
	s, c := &server{}, newComponent()
	c.fail[0] = nil
	run := start(t, s, c)
	c.next(t)
	err := run.wait(t)
	if err == nil || !strings.Contains(err.Error(), "returned before it was stopped") {
		t.Fatalf("Run returned %v, want an error saying the generation returned on its own", err)
	}
}

func TestCancelEndsRunAfterTheGeneration(t *testing.T) {
	s, c := &server{}, newComponent()
	run := start(t, s, c)
	c.next(t)
	s.outage(2 * minOutage)
	c.next(t)
	run.cancel()
	if err := run.wait(t); err != nil {
		t.Fatalf("Run returned %v, want nil", err)
	}
	if n := c.live.Load(); n != 0 {
		t.Fatalf("%d generations still running after Run returned", n)
	}
}

// TestProbeIsBounded: a server that hangs counts as down.
func TestProbeIsBounded(t *testing.T) {
	var hang atomic.Bool
	var probes sync.WaitGroup
	c := newComponent()
	probe := func(ctx context.Context) error {
		probes.Add(1)
		defer probes.Done()
		if hang.Load() {
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- Renewer{Component: t.Name(), Probe: probe, Period: period, Min: minOutage}.Run(ctx, c.run)
	}()
	c.next(t)
	hang.Store(true)
	time.Sleep(2 * minOutage)
	hang.Store(false)
	if g := c.next(t); g.N != 1 {
		t.Fatalf("generation after the server hung: %+v", g)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	probes.Wait()
}
