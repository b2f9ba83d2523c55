package manager

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/outage"
	"antreaplus.io/antreaplus/internal/reqtrace"
	"antreaplus.io/antreaplus/pkg/federation/election"
)

// The member's Lease API as the elector uses it: every read and write
// doubles as a probe of the member (probe, probingLeases).

// probe records what the elector's Lease reads said of the member.
type probe struct {
	mu       sync.Mutex
	lastOK   time.Time
	lastErr  error
	lastTime time.Time
	// unreachable is when a read last failed without reaching the
	// member (outage.Unreachable: refused, reset, no connection).
	unreachable time.Time
	// flips, when set, counts the probes whose outcome (answered or not)
	// differs from the one before: the manager's view is computed again
	// at once (freshViewLocked).
	flips *atomic.Uint64
}

func (p *probe) record(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.flips != nil && (p.lastTime.IsZero() || (p.lastErr == nil) != (err == nil)) {
		p.flips.Add(1)
	}
	p.lastTime = time.Now()
	p.lastErr = err
	if err == nil {
		p.lastOK = p.lastTime
	}
	if outage.Unreachable(err) {
		p.unreachable = p.lastTime
	}
}

// unreachableSince tells whether a read failed without reaching the member
// at or after t.
func (p *probe) unreachableSince(t time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.unreachable.Before(t) && !p.unreachable.IsZero()
}

func (p *probe) get() (lastOK, lastTime time.Time, lastErr error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastOK, p.lastTime, p.lastErr
}

// result is the last Lease read's error, as a probe of the member for
// package outage: nil (answered) before the first read.
func (p *probe) result(context.Context) error {
	_, _, err := p.get()
	return err
}

// decidesAgain tells whether a leader Lease that changed from old to l
// (nil: none) changed what an election round decides from: its holder or
// the hand-over it asks for. A renewal changes neither.
func decidesAgain(old, l *coordinationv1.Lease) bool {
	if old == nil || l == nil {
		return true
	}
	return ptr.Deref(old.Spec.HolderIdentity, "") != ptr.Deref(l.Spec.HolderIdentity, "") ||
		old.Annotations[federationv1alpha1.AnnotationHandoverTo] != l.Annotations[federationv1alpha1.AnnotationHandoverTo]
}

// probingLeases is the member's Lease API; every read, and every update
// (a leader renews without reading first), doubles as a probe of the
// member. A read is served from the watch when it is fresh (an event
// within election.Config.LateAfter: the member pushed it, so it answers).
type probingLeases struct {
	c interface {
		Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordinationv1.Lease, error)
		Create(ctx context.Context, l *coordinationv1.Lease, opts metav1.CreateOptions) (*coordinationv1.Lease, error)
		Update(ctx context.Context, l *coordinationv1.Lease, opts metav1.UpdateOptions) (*coordinationv1.Lease, error)
	}
	name  string
	probe *probe
	// watched, when set, serves reads while fresh; member labels the
	// reads counted.
	watched *watchedLease
	member  string
	// written is the resourceVersion of this elector's last write until
	// the watch delivers it: until then a read goes to the API server, so
	// that a leader never decides from a copy older than its own write.
	written string
	// unsure is set when a write failed: it may have been applied all the
	// same (a renewal cancelled in flight) or lost to another writer (a
	// conflict), so the watch's copy may be older than the Lease. Reads go
	// to the API server until one answers.
	unsure bool
}

func (p *probingLeases) Get(ctx context.Context) (*coordinationv1.Lease, error) {
	if p.watched != nil {
		if p.written != "" && p.watched.delivered(p.written) {
			p.written = ""
		}
		if l, err, ok := p.watched.current(); ok && p.written == "" && !p.unsure {
			p.probe.record(nil)
			leaseReads.WithLabelValues(p.member, leaseReadWatch).Inc()
			return l, err
		}
		leaseReads.WithLabelValues(p.member, leaseReadAPI).Inc()
	}
	l, err := p.c.Get(ctx, p.name, metav1.GetOptions{})
	if err == nil || apierrors.IsNotFound(err) {
		p.unsure = false
		p.probe.record(nil)
	} else {
		p.probe.record(err)
	}
	return l, err
}

var _ election.SeenLeases = (*probingLeases)(nil)

// SeenAt implements election.SeenLeases: when the watch delivered the
// version, if it did before read.
func (p *probingLeases) SeenAt(rv string, read time.Time) time.Time {
	return p.watched.seenAt(rv, read)
}

func (p *probingLeases) Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	ctx, req := reqtrace.Start(ctx)
	out, err := p.c.Create(ctx, l, metav1.CreateOptions{})
	observeLeaseWrite(req.Done())
	p.wrote(out, err)
	return out, err
}

// wrote notes the version of a successful write, which the watch must
// deliver before it serves reads again.
func (p *probingLeases) wrote(l *coordinationv1.Lease, err error) {
	switch {
	case err == nil && l != nil:
		p.written = l.ResourceVersion
	case err != nil:
		p.unsure = true
	}
}

func (p *probingLeases) Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	ctx, req := reqtrace.Start(ctx)
	out, err := p.c.Update(ctx, l, metav1.UpdateOptions{})
	observeLeaseWrite(req.Done())
	p.wrote(out, err)
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		p.probe.record(nil) // answered: someone else wrote it meanwhile
	} else {
		p.probe.record(err)
	}
	return out, err
}
