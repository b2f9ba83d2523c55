package election

import (
	"context"
	"fmt"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// Leases reads and writes one member's leader Lease.
type Leases interface {
	Get(ctx context.Context) (*coordinationv1.Lease, error)
	Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error)
	Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error)
}

// SeenLeases are Leases that also tell when a version of the Lease was
// first seen, which may be before the read that returned it (a watch
// delivered it earlier): the wait for a Lease unchanged then counts from
// that moment, not from the round that read it, up to a retry period
// later. The moment must not come before the write it reports was made.
type SeenLeases interface {
	Leases
	// SeenAt is when resourceVersion was first seen, if before read; read otherwise.
	SeenAt(resourceVersion string, read time.Time) time.Time
}

// Peers tells an elector about the other supervisors.
type Peers interface {
	// Rank is my rank for member among live supervisors, and the preferred one.
	Rank(member string) (rank int, preferred string)
	// Alive tells whether a supervisor's manager is alive.
	Alive(supervisor string) bool
}

// StoppedPeers are Peers that also tell when a supervisor's manager
// counts as stopped (Observation.HolderStopsAt): its Leases are then taken
// sooner. Peers without it are never taken for stopped.
type StoppedPeers interface {
	Peers
	// StopsAt is when a supervisor's heartbeat counts as stopped unless
	// it changes again: LateAfter after it was last seen to change. Zero
	// when it was never seen.
	StopsAt(supervisor string) time.Time
}

// Renewals are told of every round a leader sends (package budget): while
// one is in flight long, the supervisor starts fewer reconciles.
type Renewals interface {
	// Renewing is called as a leader's round starts; done once it ends.
	Renewing() (done func())
}

// LeadFunc runs the member's controllers while leading. It must return
// soon after ctx is cancelled; term is the Lease's leaseTransitions.
type LeadFunc func(ctx context.Context, term int32)

// Elector takes part in the election of one member.
type Elector struct {
	cfg    Config
	me     string
	member string
	leases Leases
	peers  Peers
	lead   LeadFunc
	up     time.Time
	// renewals, when set, are told of the rounds sent while leading.
	renewals Renewals

	mu        sync.Mutex
	leading   bool
	term      int32
	lastRenew time.Time
	// renewTook is how long the last successful write as holder took
	// (RenewDue: slow ones are followed by a renewal every round).
	renewTook time.Duration
	// own is the Lease as this manager last wrote it as holder, while it
	// leads: the next renewal updates it without reading it first.
	own *coordinationv1.Lease
	// What this manager last knew of the Lease, for Status.
	holder      string
	renewTime   time.Time
	acquireTime time.Time
	transitions int32

	// resumes counts the renewals that opened the Fence again after it had
	// closed, leadership kept (Fence.Resumes).
	resumes uint64

	lastVersion string
	changedAt   time.Time
	stopLead    context.CancelFunc
	leadDone    chan struct{}

	// preferred is the supervisor the plan last preferred for the member,
	// and since when (Observation.PreferredSince).
	preferred      string
	preferredSince time.Time

	// noted is what the rounds last logged of the plan and of a refused
	// hand-over: each change is logged once, not every round.
	noted struct{ preferred, refused string }

	// poked asks Run for a round now (Poke).
	poked chan struct{}
}

// New returns an elector for member, run by supervisor me.
func New(cfg Config, me, member string, leases Leases, peers Peers, lead LeadFunc) *Elector {
	return &Elector{cfg: cfg, me: me, member: member, leases: leases, peers: peers, lead: lead, up: time.Now(), poked: make(chan struct{}, 1)}
}

// Poke asks for a round now, beside those every retry period: something
// the rounds decide from has changed (the Lease was released or changed
// hands, a supervisor left). It never blocks; pokes while one is pending
// make one round.
func (e *Elector) Poke() {
	select {
	case e.poked <- struct{}{}:
	default:
	}
}

// WithRenewals tells r of every round this elector sends while leading;
// call it before Run.
func (e *Elector) WithRenewals(r Renewals) *Elector {
	e.renewals = r
	return e
}

// Run takes part in the election until ctx ends. Then, if it was leading,
// it stops its controllers and releases the Lease, so that another
// supervisor takes the member over without waiting for it to expire. A
// manager killed outright releases nothing: its Lease expires.
func (e *Elector) Run(ctx context.Context) {
	t := time.NewTicker(e.cfg.RetryPeriod)
	defer t.Stop()
	defer e.release(ctx)
	for {
		// Rounds every retry period, and one more at the moment the
		// Lease becomes mine to take (NextRound), when that comes sooner.
		var early <-chan time.Time
		if next := e.round(ctx); !next.IsZero() {
			if d := time.Until(next) + nextRoundMargin; d < e.cfg.RetryPeriod {
				early = time.After(d)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-early:
		case <-e.poked:
		}
	}
}

// nextRoundMargin is how long after the moment NextRound names the early
// round runs: that round must see the wait as over.
const nextRoundMargin = 10 * time.Millisecond

// round observes, decides and acts once; it returns when the next round
// could decide otherwise by itself (NextRound), zero when not sooner than
// the ticker's.
func (e *Elector) round(ctx context.Context) time.Time {
	log := klog.FromContext(ctx).WithValues("member", e.member)
	e.mu.Lock()
	now := time.Now()
	timeout := RoundTimeout(e.cfg, e.leading, e.lastRenew, now)
	own := e.own
	due := RenewDue(e.cfg, e.lastRenew, e.renewTook, now)
	e.mu.Unlock()
	// A hand-over asked of me that I refused is decided again every round
	// (the plan or the asker's liveness may change): read the Lease.
	// Otherwise a leader whose renewal is not due sends nothing this round:
	// what another supervisor writes meanwhile (a hand-over asked for) it
	// sees at its next renewal, which conflicts.
	if own != nil && refusedNone(own, e.me) && !due {
		return time.Time{}
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if own != nil && e.renewals != nil {
		defer e.renewals.Renewing()()
	}
	if own != nil && refusedNone(own, e.me) && e.renewOwn(rctx, log, own) {
		return time.Time{}
	}
	lease, obs := e.observe(rctx)
	d := Decide(e.cfg, e.me, obs)
	var next time.Time
	if d.Action == None {
		next = NextRound(e.cfg, e.me, obs)
	}
	e.note(log, obs, d, lease)
	if d.StepDown && d.Action != HandOver { // a hand-over steps down itself
		reason, why := StepDownReason(e.cfg, obs)
		log.Info("Stepping down", "reason", why)
		e.stepDown(reason)
	}
	var err error
	switch d.Action {
	case Create:
		err = e.write(rctx, e.create)
	case Acquire:
		err = e.write(rctx, func(ctx context.Context) (*coordinationv1.Lease, error) { return e.acquire(ctx, lease) })
	case Renew:
		err = e.write(rctx, func(ctx context.Context) (*coordinationv1.Lease, error) { return e.renew(ctx, lease) })
	case RequestHandover:
		l := lease.DeepCopy()
		metav1.SetMetaDataAnnotation(&l.ObjectMeta, federationv1alpha1.AnnotationHandoverTo, e.me)
		_, err = e.leases.Update(rctx, l)
		if err == nil {
			log.Info("Asked the holder for a hand-over", "holder", holderOf(lease))
			handoverRequests.WithLabelValues(e.member).Inc()
		}
	case HandOver:
		err = e.handOver(rctx, lease, d.Target)
		if err == nil {
			log.Info("Handed the member over", "to", d.Target)
			handovers.WithLabelValues(e.member).Inc()
		}
	}
	if err != nil && !apierrors.IsConflict(err) && !apierrors.IsAlreadyExists(err) {
		electionErrors.WithLabelValues(e.member, string(d.Action)).Inc()
		log.V(2).Info("Election round failed", "action", d.Action, "err", err)
	}
	return next
}

// refusedNone tells whether the Lease asks no hand-over of me to another.
func refusedNone(l *coordinationv1.Lease, me string) bool {
	to := l.Annotations[federationv1alpha1.AnnotationHandoverTo]
	return to == "" || to == me
}

// renewOwn renews the Lease as this leader last wrote it, without reading
// it first: one request a round instead of two, so that a slow API server
// has the whole round for it. It returns false when the round must read
// the Lease and decide: someone else wrote it meanwhile (a hand-over asked
// for, or another holder: the update conflicts) or it is gone. A renewal
// that fails otherwise ends the round; the leader steps down once no
// renewal succeeded for RenewDeadline.
func (e *Elector) renewOwn(ctx context.Context, log klog.Logger, own *coordinationv1.Lease) bool {
	err := e.write(ctx, func(ctx context.Context) (*coordinationv1.Lease, error) { return e.renew(ctx, own) })
	switch {
	case err == nil:
		return true
	case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
		e.mu.Lock()
		e.own = nil
		e.mu.Unlock()
		return false
	}
	electionErrors.WithLabelValues(e.member, string(Renew)).Inc()
	log.V(2).Info("Renewal failed", "err", err)
	e.mu.Lock()
	obs := Observation{Now: time.Now(), Leading: e.leading, LastRenew: e.lastRenew}
	e.mu.Unlock()
	if Decide(e.cfg, e.me, obs).StepDown {
		reason, why := StepDownReason(e.cfg, obs)
		log.Info("Stepping down", "reason", why, "err", err)
		e.stepDown(reason)
	}
	return true
}

// note logs when the supervisor the plan prefers for the member changes,
// and when a hand-over asked of me is refused (or no longer is): a
// preferred supervisor that never gets its member back shows why here.
func (e *Elector) note(log klog.Logger, obs Observation, d Decision, lease *coordinationv1.Lease) {
	if obs.Reachable && obs.Preferred != e.noted.preferred {
		log.Info("Preferred supervisor", "preferred", obs.Preferred, "was", e.noted.preferred, "rank", obs.Rank)
		e.noted.preferred = obs.Preferred
	}
	if obs.Reachable && d.Refused != e.noted.refused {
		if d.Refused != "" {
			log.Info("Refusing a hand-over", "askedBy", lease.Annotations[federationv1alpha1.AnnotationHandoverTo], "reason", d.Refused)
		}
		e.noted.refused = d.Refused
	}
}

// observe reads the Lease and builds the observation of this round.
func (e *Elector) observe(ctx context.Context) (*coordinationv1.Lease, Observation) {
	now := time.Now()
	lease, err := e.leases.Get(ctx)
	took := time.Since(now)
	rank, preferred := e.peers.Rank(e.member)
	e.mu.Lock()
	defer e.mu.Unlock()
	if preferred != e.preferred || e.preferredSince.IsZero() {
		e.preferred, e.preferredSince = preferred, now
	}
	obs := Observation{
		Now: now, Rank: rank, Preferred: preferred, PreferredAlive: preferred == e.me || e.peers.Alive(preferred),
		Leading: e.leading, LastRenew: e.lastRenew, UpSince: e.up, PreferredSince: e.preferredSince,
		MemberSlow: took >= e.cfg.RetryPeriod/2,
	}
	switch {
	case apierrors.IsNotFound(err):
		obs.Reachable = true
		e.noteVersion("", now)
		lease = nil
	case err != nil:
		return nil, obs
	default:
		obs.Reachable = true
		seen := now
		if sl, ok := e.leases.(SeenLeases); ok {
			seen = sl.SeenAt(lease.ResourceVersion, now)
		}
		e.noteVersion(lease.ResourceVersion, seen)
		obs.Lease = &Lease{Holder: holderOf(lease), Transitions: ptr.Deref(lease.Spec.LeaseTransitions, 0), HandoverTo: lease.Annotations[federationv1alpha1.AnnotationHandoverTo]}
		obs.HolderAlive = obs.Lease.Holder == e.me || e.peers.Alive(obs.Lease.Holder)
		if sp, ok := e.peers.(StoppedPeers); ok && obs.Lease.Holder != e.me && obs.Lease.Holder != "" {
			obs.HolderStopsAt = sp.StopsAt(obs.Lease.Holder)
		}
		e.noteLease(lease)
	}
	obs.ChangedAt = e.changedAt
	return lease, obs
}

// noteLease records what Status reports of the Lease. Must hold e.mu.
func (e *Elector) noteLease(l *coordinationv1.Lease) {
	e.holder = holderOf(l)
	e.transitions = ptr.Deref(l.Spec.LeaseTransitions, 0)
	e.renewTime, e.acquireTime = time.Time{}, time.Time{}
	if l.Spec.RenewTime != nil {
		e.renewTime = l.Spec.RenewTime.Time
	}
	if l.Spec.AcquireTime != nil {
		e.acquireTime = l.Spec.AcquireTime.Time
	}
}

// noteVersion records when the Lease was last seen to change. Must hold e.mu.
func (e *Elector) noteVersion(rv string, now time.Time) {
	if e.changedAt.IsZero() || rv != e.lastVersion {
		e.lastVersion, e.changedAt = rv, now
	}
}

func (e *Elector) create(ctx context.Context) (*coordinationv1.Lease, error) {
	now := metav1.NowMicro()
	l := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.LeaderLease, Namespace: federationv1alpha1.SystemNamespace,
			Labels: map[string]string{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation}},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity: ptr.To(e.me), LeaseDurationSeconds: ptr.To(int32(e.cfg.LeaseDuration / time.Second)),
			AcquireTime: &now, RenewTime: &now, LeaseTransitions: ptr.To(int32(1)),
		},
	}
	return e.leases.Create(ctx, l)
}

func (e *Elector) acquire(ctx context.Context, old *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	l := old.DeepCopy()
	now := metav1.NowMicro()
	l.Spec.HolderIdentity = ptr.To(e.me)
	l.Spec.LeaseDurationSeconds = ptr.To(int32(e.cfg.LeaseDuration / time.Second))
	l.Spec.AcquireTime, l.Spec.RenewTime = &now, &now
	l.Spec.LeaseTransitions = ptr.To(ptr.Deref(old.Spec.LeaseTransitions, 0) + 1)
	delete(l.Annotations, federationv1alpha1.AnnotationHandoverTo)
	return e.leases.Update(ctx, l)
}

func (e *Elector) renew(ctx context.Context, old *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	l := old.DeepCopy()
	now := metav1.NowMicro()
	l.Spec.RenewTime = &now
	if l.Annotations[federationv1alpha1.AnnotationHandoverTo] == e.me {
		delete(l.Annotations, federationv1alpha1.AnnotationHandoverTo)
	}
	return e.leases.Update(ctx, l)
}

// handOver stops leading first, then writes the new holder: the target
// starts leading only after this update, so the two never act together.
func (e *Elector) handOver(ctx context.Context, old *coordinationv1.Lease, target string) error {
	e.stepDown(StepDownHandedOver)
	l := old.DeepCopy()
	now := metav1.NowMicro()
	l.Spec.HolderIdentity = ptr.To(target)
	l.Spec.AcquireTime, l.Spec.RenewTime = &now, &now
	l.Spec.LeaseTransitions = ptr.To(ptr.Deref(old.Spec.LeaseTransitions, 0) + 1)
	delete(l.Annotations, federationv1alpha1.AnnotationHandoverTo)
	_, err := e.leases.Update(ctx, l)
	return err
}

// write runs a Lease write that makes me the holder, and starts leading on success.
func (e *Elector) write(ctx context.Context, do func(context.Context) (*coordinationv1.Lease, error)) error {
	sent := time.Now()
	l, err := do(ctx)
	if err != nil {
		return err
	}
	if holderOf(l) != e.me {
		return fmt.Errorf("lease written with holder %q", holderOf(l))
	}
	term := ptr.Deref(l.Spec.LeaseTransitions, 0)
	e.mu.Lock()
	newTerm := e.leading && term != e.term
	e.mu.Unlock()
	if newTerm {
		// Another supervisor held the Lease meanwhile and it is mine again:
		// the controllers of the old term stop before those of the new one.
		e.stepDown(StepDownTaken)
	}
	now := time.Now()
	e.mu.Lock()
	// A leader whose Fence had closed (no renewal within RenewDeadline)
	// and opens again with this renewal resumes: same term, controllers
	// kept; they reconcile everything again (Fence.Resumes), as writes
	// refused meanwhile were not retried.
	resumed := e.leading && !Acting(e.cfg, e.lastRenew, now) && Acting(e.cfg, sent, now)
	late := now.Sub(e.lastRenew)
	if resumed {
		e.resumes++
	}
	// The renewal counts from when it was sent: the Lease may have been
	// written at any time after that.
	e.lastRenew, e.renewTook = sent, now.Sub(sent)
	e.noteVersion(l.ResourceVersion, now)
	e.noteLease(l)
	e.own = l
	start := !e.leading
	if start {
		e.leading, e.term = true, term
	}
	e.mu.Unlock()
	if resumed {
		lateRenewals.WithLabelValues(e.member).Inc()
		klog.FromContext(ctx).Info("Renewed late: writing again, leadership kept", "member", e.member, "term", term, "sinceLastRenewal", late.Round(time.Millisecond))
	}
	if start {
		e.startLeading(ctx, term)
	}
	return nil
}

func (e *Elector) startLeading(ctx context.Context, term int32) {
	klog.FromContext(ctx).Info("Leading", "member", e.member, "term", term)
	leaderTransitions.WithLabelValues(e.member).Inc()
	leading.WithLabelValues(e.member).Set(1)
	// The controllers outlive this round's context: they stop on stepDown.
	lctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.FromContext(ctx)))
	done := make(chan struct{})
	e.mu.Lock()
	e.stopLead, e.leadDone = cancel, done
	e.mu.Unlock()
	go func() {
		defer close(done)
		e.lead(lctx, term)
	}()
}

// release stops leading and, if the Lease is still ours, empties its holder.
func (e *Elector) release(parent context.Context) {
	e.mu.Lock()
	wasLeading := e.leading
	e.mu.Unlock()
	e.stepDown(StepDownReleased)
	if !wasLeading {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), 2*time.Second)
	defer cancel()
	log := klog.FromContext(parent)
	// A renewal cancelled in flight may have been applied all the same: the
	// copy read first is then older than the Lease and the update
	// conflicts. Read again and retry; a Lease left held would be renewed
	// by this supervisor's next session in the same term, or expire.
	var err error
	for range releaseAttempts {
		var l *coordinationv1.Lease
		if l, err = e.leases.Get(ctx); err != nil {
			break
		}
		if holderOf(l) != e.me {
			return
		}
		l = l.DeepCopy()
		l.Spec.HolderIdentity = ptr.To("")
		if _, err = e.leases.Update(ctx, l); err == nil {
			log.Info("Released the lease", "member", e.member)
			return
		}
		if !apierrors.IsConflict(err) {
			break
		}
	}
	log.Info("Could not release the lease: it expires instead", "member", e.member, "err", err)
}

// releaseAttempts bounds the reads and updates of a release that conflict.
const releaseAttempts = 3

// stepDown stops acting as leader and waits for the controllers to
// return; reason is counted when it was leading.
func (e *Elector) stepDown(reason string) {
	e.mu.Lock()
	stop, done := e.stopLead, e.leadDone
	e.leading, e.stopLead, e.leadDone, e.own = false, nil, nil, nil
	e.mu.Unlock()
	if stop != nil {
		stop()
		<-done
		leading.WithLabelValues(e.member).Set(0)
		stepDowns.WithLabelValues(e.member, reason).Inc()
	}
}

// Fence guards the writes of the member's controllers.
func (e *Elector) Fence() Fence { return Fence{e: e} }

// LeaseStatus is what an elector last knew of the member's Lease.
type LeaseStatus struct {
	// Holder is the supervisor holding the Lease, "" when none.
	Holder string
	// RenewTime and AcquireTime are the Lease's (zero when unset).
	RenewTime, AcquireTime time.Time
	// Term is the Lease's leaseTransitions: one more at each change of holder.
	Term int32
	// Leading is whether this manager leads the member now: its
	// controllers run.
	Leading bool
	// Fenced is whether, leading, it may not write now: no renewal within
	// RenewDeadline (it resumes with a late renewal, or steps down at
	// GiveUpAfter).
	Fenced bool
}

// Status is what the elector last knew of the member's Lease.
func (e *Elector) Status() LeaseStatus {
	e.mu.Lock()
	defer e.mu.Unlock()
	return LeaseStatus{Holder: e.holder, RenewTime: e.renewTime, AcquireTime: e.acquireTime, Term: e.transitions, Leading: e.leading,
		Fenced: e.leading && !Acting(e.cfg, e.lastRenew, time.Now())}
}

// Fence tells a controller whether it may still write as leader.
type Fence struct{ e *Elector }

// Check returns the term to write with, and false once this manager must
// no longer act: not leading, or no renewal for RenewDeadline (a starved
// API server, or the process was paused; Acting).
func (f Fence) Check() (int32, bool) {
	e := f.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.leading || !Acting(e.cfg, e.lastRenew, time.Now()) {
		return 0, false
	}
	return e.term, true
}

// Resumes counts the times the Fence opened again, in the same term, after
// it had closed (a renewal later than RenewDeadline but within
// GiveUpAfter): the writes it refused meanwhile were not retried, so a
// controller that sees the count change reconciles everything again. A
// Fence of no elector never resumes.
func (f Fence) Resumes() uint64 {
	if f.e == nil {
		return 0
	}
	f.e.mu.Lock()
	defer f.e.mu.Unlock()
	return f.e.resumes
}

func holderOf(l *coordinationv1.Lease) string {
	if l == nil {
		return ""
	}
	return ptr.Deref(l.Spec.HolderIdentity, "")
}
