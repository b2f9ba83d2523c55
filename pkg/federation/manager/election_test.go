package manager

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/utils/ptr"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/budget"
	"antreaplus.io/antreaplus/pkg/federation/election"
	"antreaplus.io/antreaplus/test/framework"
)

// slowLeases answers every request late, as a starved API server does:
// half the delay before the request reaches the API server, half after it
// answered (so a write may be applied although the client gave up on it).
type slowLeases struct {
	next  election.Leases
	delay time.Duration
	sent  atomic.Int32
}

func (s *slowLeases) wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(s.delay / 2):
		return nil
	}
}

func slow[T any](ctx context.Context, s *slowLeases, do func(context.Context) (T, error)) (T, error) {
	var zero T
	if err := s.wait(ctx); err != nil {
		return zero, err
	}
	s.sent.Add(1)
	out, err := do(ctx)
	if werr := s.wait(ctx); werr != nil {
		return zero, werr
	}
	return out, err
}

func (s *slowLeases) Get(ctx context.Context) (*coordinationv1.Lease, error) {
	return slow(ctx, s, s.next.Get)
}

func (s *slowLeases) Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	return slow(ctx, s, func(ctx context.Context) (*coordinationv1.Lease, error) { return s.next.Create(ctx, l) })
}

func (s *slowLeases) Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	return slow(ctx, s, func(ctx context.Context) (*coordinationv1.Lease, error) { return s.next.Update(ctx, l) })
}

// freshLeases is member-2's Lease API, its leader Lease deleted.
func freshLeases(t *testing.T) coordinationv1client.LeaseInterface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(clusters.Config(t, member))
	if err != nil {
		t.Fatal(err)
	}
	framework.EnsureNamespaces(t, clusters.Client(t, member), federationv1alpha1.SystemNamespace)
	api := cs.CoordinationV1().Leases(federationv1alpha1.SystemNamespace)
	if err := api.Delete(t.Context(), federationv1alpha1.LeaderLease, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return api
}

// runElector runs e until the test ends, then waits for it to release.
func runElector(t *testing.T, e *election.Elector) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// alone is a federation of one live supervisor.
type alone struct{ me string }

func (a alone) Rank(string) (int, string) { return 0, a.me }
func (a alone) Alive(s string) bool       { return s == a.me }

// fencedLead counts a leader's terms and whether its Fence closed while
// it led (checked every 100 ms).
type fencedLead struct {
	started, stopped atomic.Int32
	fenceClosed      atomic.Bool
}

// newFencedElector is an elector of member for me alone, whose leading
// fencedLead follows.
func newFencedElector(cfg election.Config, me string, leases election.Leases) (*election.Elector, *fencedLead) {
	l := &fencedLead{}
	var e *election.Elector
	e = election.New(cfg, me, member, leases, alone{me: me}, func(ctx context.Context, _ int32) {
		l.started.Add(1)
		defer l.stopped.Add(1)
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, ok := e.Fence().Check(); !ok && ctx.Err() == nil {
				l.fenceClosed.Store(true)
			}
		}
	})
	return e, l
}

// TestLeaderHoldsThroughSlowRenewals: every Lease request to the member
// takes 1.5 s (a starved API server), so a round's read and write together
// take longer than two retry periods. The supervisor still takes the member
// and then leads it without a single step-down for 15 s, renewing with one
// request a round; its Fence stays open. (With a fixed round timeout of two
// retry periods, every round was cancelled: the member was never led.)
func TestLeaderHoldsThroughSlowRenewals(t *testing.T) {
	api := freshLeases(t)
	leases := &slowLeases{next: &probingLeases{c: api, name: federationv1alpha1.LeaderLease, probe: &probe{}}, delay: 1500 * time.Millisecond}
	const me = "supervisor-slow"
	e, l := newFencedElector(election.DefaultConfig(), me, leases)
	// The supervisor's budget is told of the renewals: each is late (in
	// flight 500 ms or more) for a second of its 1.5 s, and meanwhile
	// admits one reconcile, not two.
	b := budget.New(budget.Config{Limit: 2, Floor: 1, LateAfter: 500 * time.Millisecond})
	runElector(t, e.WithRenewals(b))
	framework.Eventually(t, 20*time.Second, func() error {
		if l.started.Load() == 0 {
			return fmt.Errorf("not leading yet (%d Lease requests sent)", leases.sent.Load())
		}
		return nil
	})
	started, stopped, fenceClosed := &l.started, &l.stopped, &l.fenceClosed
	led := time.Now()
	sentBefore := leases.sent.Load()
	first, err := api.Get(t.Context(), federationv1alpha1.LeaderLease, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Acquire(t.Context()); err != nil { // one reconcile runs throughout
		t.Fatal(err)
	}
	var held, admitted int
	for time.Since(led) < 15*time.Second {
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		if b.Acquire(ctx) == nil {
			admitted++
			b.Release()
		} else {
			held++
		}
		cancel()
		time.Sleep(200 * time.Millisecond)
	}
	b.Release()
	if held == 0 {
		t.Errorf("a second reconcile was admitted all %d times over 15 s of renewals 1.5 s late; want it held while one is late", admitted)
	}
	t.Logf("a second reconcile: admitted %d times, held %d times while a renewal was late", admitted, held)
	if started.Load() != 1 || stopped.Load() != 0 || fenceClosed.Load() {
		t.Errorf("over 15 s of slow renewals: led %d times, stepped down %d times, fence closed while leading: %t; want once, never, false",
			started.Load(), stopped.Load(), fenceClosed.Load())
	}
	last, err := api.Get(t.Context(), federationv1alpha1.LeaderLease, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	renewals := leases.sent.Load() - sentBefore
	gap := last.Spec.RenewTime.Sub(first.Spec.RenewTime.Time)
	if holderOf := *last.Spec.HolderIdentity; holderOf != me || gap < 10*time.Second {
		t.Errorf("the Lease: holder %q, renewed %s later; want %s, more than 10 s later", holderOf, gap, me)
	}
	if per := time.Since(led) / time.Duration(max(renewals, 1)); per < time.Second {
		t.Errorf("%d Lease requests in %s while leading: more than one a round (reads before renewals?)", renewals, time.Since(led).Round(time.Second))
	}
	t.Logf("led through 15 s of Lease requests answered 1.5 s late: %d renewals, one request each, the Lease renewed %s later", renewals, gap.Round(time.Millisecond))
	if st := e.Status(); !st.Leading || st.Holder != me || st.Term < 1 {
		t.Errorf("Status() = %+v; want leading, holder %s, a term", st, me)
	}
}

// timedLeases records when each request was sent and how long it took.
type timedLeases struct {
	next election.Leases
	mu   sync.Mutex
	sent []timedRequest
}

type timedRequest struct {
	verb string
	at   time.Time
	took time.Duration
	ok   bool
}

func (l *timedLeases) do(verb string, f func() (*coordinationv1.Lease, error)) (*coordinationv1.Lease, error) {
	at := time.Now()
	out, err := f()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent = append(l.sent, timedRequest{verb: verb, at: at, took: time.Since(at), ok: err == nil})
	return out, err
}

func (l *timedLeases) Get(ctx context.Context) (*coordinationv1.Lease, error) {
	return l.do("get", func() (*coordinationv1.Lease, error) { return l.next.Get(ctx) })
}

func (l *timedLeases) Create(ctx context.Context, le *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	return l.do("create", func() (*coordinationv1.Lease, error) { return l.next.Create(ctx, le) })
}

func (l *timedLeases) Update(ctx context.Context, le *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	return l.do("update", func() (*coordinationv1.Lease, error) { return l.next.Update(ctx, le) })
}

func (l *timedLeases) requests() []timedRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]timedRequest(nil), l.sent...)
}

// TestLeaderRenewsEveryRenewalPeriod: a leader whose renewals are quick
// sends one request every renewal period (2 s), not every round, and its
// Fence stays open; after a renewal that took half a retry period or more
// it renews at the next round (election.RenewDue, whose tables cover the
// rest). Counted on a real API server: every pair of renewals whose first
// was quick is at least a renewal period less half a round apart.
func TestLeaderRenewsEveryRenewalPeriod(t *testing.T) {
	api := freshLeases(t)
	leases := &timedLeases{next: &probingLeases{c: api, name: federationv1alpha1.LeaderLease, probe: &probe{}}}
	const me = "supervisor-quick"
	cfg := election.DefaultConfig()
	e, l := newFencedElector(cfg, me, leases)
	runElector(t, e)
	framework.Eventually(t, 20*time.Second, func() error {
		if l.started.Load() == 0 {
			return fmt.Errorf("not leading yet (%d Lease requests sent)", len(leases.requests()))
		}
		return nil
	})
	started, fenceClosed := &l.started, &l.fenceClosed
	led := time.Now()
	time.Sleep(12 * time.Second)
	var renewals []timedRequest
	for _, r := range leases.requests() {
		if !r.at.Before(led) {
			renewals = append(renewals, r)
		}
	}
	if started.Load() != 1 || fenceClosed.Load() {
		t.Errorf("led %d times, fence closed while leading: %t; want once, false", started.Load(), fenceClosed.Load())
	}
	if len(renewals) < 4 {
		t.Fatalf("%d Lease requests in 12 s of leading; want a renewal every %s: %+v", len(renewals), cfg.Renewal(), renewals)
	}
	half := cfg.RetryPeriod / 2
	quick := 0
	for i := 1; i < len(renewals); i++ {
		prev, r := renewals[i-1], renewals[i]
		if prev.verb != "update" || r.verb != "update" || !prev.ok {
			t.Errorf("request %d: %s after %s (ok %t); a leader renews with one update and reads nothing", i, r.verb, prev.verb, prev.ok)
			continue
		}
		if prev.took >= half*6/10 {
			continue // slow: the next round renews again, as RenewDue says
		}
		quick++
		if gap := r.at.Sub(prev.at); gap < cfg.Renewal()-half {
			t.Errorf("renewal %d sent %s after a quick one (it took %s); want a renewal period, %s, less half a round",
				i, gap.Round(time.Millisecond), prev.took.Round(time.Millisecond), cfg.Renewal())
		}
	}
	if quick == 0 {
		t.Errorf("no quick renewal in 12 s on an idle API server: %+v", renewals)
	}
	t.Logf("12 s of leading: %d renewals, %d of them quick and followed by a round without a request", len(renewals), quick)
}

// flipping prefers "asker" for every member, and sees it alive once alive is set.
type flipping struct {
	me    string
	alive atomic.Bool
}

func (f *flipping) Rank(string) (int, string) { return 1, "asker" }
func (f *flipping) Alive(s string) bool {
	return s == f.me || (s == "asker" && f.alive.Load())
}

// TestRefusedHandoverDecidedAgain: a leader refuses a hand-over while it
// does not see the asker's manager alive, and hands over as soon as it
// does, though nobody writes the Lease meanwhile (the leader renewing its
// own last write must still read a Lease that asks something of it).
func TestRefusedHandoverDecidedAgain(t *testing.T) {
	api := freshLeases(t)
	peers := &flipping{me: "holder"}
	var led atomic.Int32
	// Its reads go through the watch, as a session's do: a leader that reads
	// every round must not decide from a copy older than its own renewal.
	e := election.New(election.DefaultConfig(), "holder", member, watchedLeases(t, api, member), peers,
		func(ctx context.Context, _ int32) { led.Add(1); <-ctx.Done() })
	runElector(t, e)
	framework.Eventually(t, 20*time.Second, func() error {
		if !e.Status().Leading {
			return fmt.Errorf("not leading yet")
		}
		return nil
	})
	// The asker writes its request once, as an elector does.
	framework.Eventually(t, 10*time.Second, func() error {
		l, err := api.Get(t.Context(), federationv1alpha1.LeaderLease, metav1.GetOptions{})
		if err != nil {
			return err
		}
		metav1.SetMetaDataAnnotation(&l.ObjectMeta, federationv1alpha1.AnnotationHandoverTo, "asker")
		_, err = api.Update(t.Context(), l, metav1.UpdateOptions{})
		return err
	})
	time.Sleep(3 * time.Second)
	if !e.Status().Leading {
		t.Fatal("handed over to a supervisor not seen alive")
	}
	peers.alive.Store(true)
	framework.Eventually(t, 10*time.Second, func() error {
		l, err := api.Get(t.Context(), federationv1alpha1.LeaderLease, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if h := *l.Spec.HolderIdentity; h != "asker" {
			return fmt.Errorf("the Lease is held by %q; want it handed over to asker once asker is seen alive", h)
		}
		return nil
	})
	if e.Status().Leading {
		t.Error("still leading after the hand-over")
	}
}

// watchedLeases is api with reads served by a watch of the leader Lease
// while it is fresh, as a session's elector has it; member labels its reads.
func watchedLeases(t *testing.T, api coordinationv1client.LeaseInterface, member string) *probingLeases {
	t.Helper()
	w, stop := runWatchedLease(t, member)
	t.Cleanup(stop)
	return &probingLeases{c: api, name: federationv1alpha1.LeaderLease, probe: &probe{}, watched: w, member: member}
}

// runWatchedLease runs a watch of member's leader Lease until stop, which
// waits for it to end.
func runWatchedLease(t *testing.T, member string) (w *watchedLease, stop func()) {
	t.Helper()
	cs, err := kubernetes.NewForConfig(clusters.Config(t, member))
	if err != nil {
		t.Fatal(err)
	}
	w = newWatchedLease(federationv1alpha1.SystemNamespace, federationv1alpha1.LeaderLease, election.DefaultConfig().LateAfter())
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.run(ctx, cs)
	}()
	var once sync.Once
	return w, func() { once.Do(func() { cancel(); <-done }) }
}

// second is a supervisor ranked second for every member, the other one
// (holder) preferred; both alive.
type second struct{ holder string }

func (s second) Rank(string) (int, string) { return 1, s.holder }
func (s second) Alive(string) bool         { return true }

// TestObserverReadsTheWatch: while another supervisor renews the leader
// Lease every second, an observing elector reads it from its watch (no
// request to the member); once the holder stops, the watch goes stale, the
// observer reads the API server again and takes the member over after the
// Lease's duration, as before.
func TestObserverReadsTheWatch(t *testing.T) {
	api := freshLeases(t)
	holderCtx, stopHolder := context.WithCancel(t.Context())
	defer stopHolder()
	go func() { // the holder renews every retry period, as a leader does
		now := metav1.NowMicro()
		l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.LeaderLease, Namespace: federationv1alpha1.SystemNamespace},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("holder"), LeaseDurationSeconds: ptr.To(int32(6)), AcquireTime: &now, RenewTime: &now, LeaseTransitions: ptr.To(int32(1))}}
		l, err := api.Create(holderCtx, l, metav1.CreateOptions{})
		for err == nil {
			select {
			case <-holderCtx.Done():
				return
			case <-time.After(time.Second):
			}
			now := metav1.NowMicro()
			l.Spec.RenewTime = &now
			l, err = api.Update(holderCtx, l, metav1.UpdateOptions{})
		}
	}()
	leases := watchedLeases(t, api, member)
	reads := func(source string) float64 { return testutil.ToFloat64(leaseReads.WithLabelValues(member, source)) }
	watch0, api0 := reads(leaseReadWatch), reads(leaseReadAPI)
	e := election.New(election.DefaultConfig(), "observer", member, leases, second{holder: "holder"}, func(ctx context.Context, _ int32) { <-ctx.Done() })
	runElector(t, e)

	time.Sleep(8 * time.Second)
	if e.Status().Leading {
		t.Fatal("the observer took the member from a holder that renews")
	}
	fromWatch, fromAPI := reads(leaseReadWatch)-watch0, reads(leaseReadAPI)-api0
	t.Logf("while the holder renews: %.0f reads from the watch, %.0f from the API server", fromWatch, fromAPI)
	if fromWatch < 5 || fromAPI > 2 {
		t.Errorf("%.0f reads from the watch and %.0f from the API server in 8 s; want nearly every one from the watch", fromWatch, fromAPI)
	}

	stopHolder()
	stopped := time.Now()
	framework.Eventually(t, 20*time.Second, func() error {
		if !e.Status().Leading {
			return fmt.Errorf("not leading yet")
		}
		return nil
	})
	took := time.Since(stopped)
	t.Logf("taken over %v after the holder stopped", took.Round(100*time.Millisecond))
	// LeaseDuration (6 s) and the rank's delay (1 s), from the last renewal.
	if took < 5*time.Second {
		t.Errorf("taken over %v after the holder stopped, before the Lease could expire", took)
	}
	if reads(leaseReadAPI)-api0-fromAPI == 0 {
		t.Error("the stale watch was trusted: no read went to the API server after the holder stopped")
	}
}

// TestSeenAtIsWhenTheWatchDelivered: the moment a Lease's version is
// counted from (election.SeenLeases) is when its watch event arrived,
// which a round reading it later does not move, and never before the
// write that made it was sent: the waits of the election count from it.
func TestSeenAtIsWhenTheWatchDelivered(t *testing.T) {
	api := freshLeases(t)
	leases := watchedLeases(t, api, member)
	now := metav1.NowMicro()
	sent := time.Now()
	l, err := api.Create(t.Context(), &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.LeaderLease, Namespace: federationv1alpha1.SystemNamespace},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("holder"), LeaseDurationSeconds: ptr.To(int32(6)), AcquireTime: &now, RenewTime: &now}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	answered := time.Now()
	framework.Eventually(t, 10*time.Second, func() error {
		if !leases.watched.delivered(l.ResourceVersion) {
			return fmt.Errorf("the watch has not delivered version %s yet", l.ResourceVersion)
		}
		return nil
	})
	delivered := time.Now()
	time.Sleep(500 * time.Millisecond)
	read := time.Now()
	seen := leases.SeenAt(l.ResourceVersion, read)
	t.Logf("sent at 0, answered at %v, delivered by %v, seen at %v, read at %v", answered.Sub(sent), delivered.Sub(sent), seen.Sub(sent), read.Sub(sent))
	if seen.Before(sent) {
		t.Errorf("version %s seen %v before its write was sent", l.ResourceVersion, sent.Sub(seen))
	}
	if seen.After(delivered) {
		t.Errorf("version %s seen %v after the watch had delivered it (the read's time, %v after sending, instead of the event's)", l.ResourceVersion, seen.Sub(delivered), read.Sub(sent))
	}
	if got := leases.SeenAt("1", read); !got.Equal(read) {
		t.Errorf("a version the watch never delivered is seen at %v; want the read's time", got.Sub(sent))
	}
}

// lostAnswers applies every update but, once lose is set, answers the
// next one with the error of a request cancelled in flight: the write is
// in the Lease, its answer never reached the elector.
type lostAnswers struct {
	coordinationv1client.LeaseInterface
	lose, lost atomic.Bool
}

func (l *lostAnswers) Update(ctx context.Context, lease *coordinationv1.Lease, opts metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	out, err := l.LeaseInterface.Update(ctx, lease, opts)
	if err == nil && l.lose.Load() && !l.lost.Load() {
		l.lost.Store(true)
		return nil, context.Canceled
	}
	return out, err
}

// TestReleaseAfterARenewalLostInFlight: a leader's renewal is applied but
// its answer lost (the session stopping cancels it), and the watch stops
// before delivering it, so the watch's copy is older than the Lease. The
// elector stopping still releases the Lease: it reads the API server after
// a write it is unsure of, and retries a release that conflicts. (It read
// the watch's copy, its release conflicted and the Lease stayed held: the
// supervisor's next session renewed it in the same term.)
func TestReleaseAfterARenewalLostInFlight(t *testing.T) {
	api := freshLeases(t)
	w, stopWatch := runWatchedLease(t, member)
	defer stopWatch()
	lossy := &lostAnswers{LeaseInterface: api}
	leases := &probingLeases{c: lossy, name: federationv1alpha1.LeaderLease, probe: &probe{}, watched: w, member: member}
	const me = "supervisor-lost"
	e := election.New(election.DefaultConfig(), me, member, leases, alone{me: me}, func(ctx context.Context, _ int32) { <-ctx.Done() })
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Run(ctx)
	}()
	defer func() { cancel(); <-done }()
	framework.Eventually(t, 20*time.Second, func() error {
		if !e.Status().Leading {
			return fmt.Errorf("not leading yet")
		}
		if _, _, ok := w.current(); !ok {
			return fmt.Errorf("the watch has not delivered the Lease yet")
		}
		return nil
	})
	// The watch stops; the next renewal is applied, its answer lost.
	stopWatch()
	lossy.lose.Store(true)
	framework.Eventually(t, 2*time.Second, func() error {
		if !lossy.lost.Load() {
			return fmt.Errorf("no renewal yet")
		}
		return nil
	})
	if _, _, ok := w.current(); !ok {
		t.Fatal("the watch's copy went stale before the release: the test would not read it")
	}
	cancel()
	<-done
	l, err := api.Get(t.Context(), federationv1alpha1.LeaderLease, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := ptr.Deref(l.Spec.HolderIdentity, ""); h != "" {
		t.Errorf("the Lease is still held by %q after the elector stopped; want it released", h)
	}
}
