package manager

import (
	"context"
	"slices"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
)

// watchedLease follows one Lease of a member through a watch selected by
// its name, so that the loops reading it every retry period (the elector's
// rounds, the peer loop) send no request while the watch shows it alive:
// whoever holds it writes it every renewal period, so an event at least
// every fresh (election.Config.LateAfter) proves the watch is delivering. When none came for fresh (the
// holder died or is slow, the watch is broken, the Lease is being created),
// the reader goes to the API server, as it always did. A read decides from
// a copy at most as old as the last event, and every write still carries
// the resourceVersion it read: a stale copy makes a write conflict, never
// succeed wrongly.
type watchedLease struct {
	namespace, name string
	fresh           time.Duration
	// onChange, when set (before run), is told of every event: the
	// version seen before (nil at first) and the new one (nil once
	// deleted). It runs outside the lock, on the informer's goroutine.
	onChange func(old, l *coordinationv1.Lease)

	mu sync.Mutex
	// lease is the last watched version; nil with present false when the
	// watch saw none.
	lease   *coordinationv1.Lease
	present bool
	eventAt time.Time
	// recent are the resourceVersions of the last events, newest last,
	// and when each was delivered: whether the watch has delivered a
	// write of the reader's own, and since when a version is known.
	recent []seenVersion
}

// seenVersion is a resourceVersion and when its event was delivered.
type seenVersion struct {
	rv string
	at time.Time
}

// recentVersions is how many resourceVersions of events a watchedLease keeps.
const recentVersions = 8

func newWatchedLease(namespace, name string, fresh time.Duration) *watchedLease {
	return &watchedLease{namespace: namespace, name: name, fresh: fresh}
}

// run watches the Lease through cs until ctx ends. A new run (a fresh
// client after an outage) replaces what an older one saw.
func (w *watchedLease) run(ctx context.Context, cs kubernetes.Interface) {
	lw := toolscache.NewListWatchFromClient(cs.CoordinationV1().RESTClient(), "leases", w.namespace,
		fields.OneTermEqualSelector("metadata.name", w.name))
	inf := toolscache.NewSharedIndexInformer(lw, &coordinationv1.Lease{}, 0, toolscache.Indexers{})
	set := func(o any, present bool) {
		l, ok := o.(*coordinationv1.Lease)
		if !ok || l.Name != w.name {
			return
		}
		w.mu.Lock()
		old := w.lease
		w.lease, w.present, w.eventAt = l, present, time.Now()
		if !present {
			w.lease = nil
		}
		w.recent = append(w.recent, seenVersion{rv: l.ResourceVersion, at: w.eventAt})
		if len(w.recent) > recentVersions {
			w.recent = w.recent[1:]
		}
		now := w.lease
		w.mu.Unlock()
		if w.onChange != nil {
			w.onChange(old, now)
		}
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { set(o, true) },
		UpdateFunc: func(_, o any) { set(o, true) },
		DeleteFunc: func(o any) {
			if t, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			set(o, false)
		},
	}); err != nil {
		return
	}
	inf.Run(ctx.Done())
}

// current is the watched Lease (a copy) when an event came within fresh:
// nil and a NotFound error when the watch saw it deleted. ok is false when
// the watch is not fresh: then read the API server.
func (w *watchedLease) current() (l *coordinationv1.Lease, err error, ok bool) { //nolint:revive // ok last reads as "served"
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.eventAt.IsZero() || time.Since(w.eventAt) >= w.fresh {
		return nil, nil, false
	}
	if !w.present {
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: coordinationv1.GroupName, Resource: "leases"}, w.name), true
	}
	return w.lease.DeepCopy(), nil, true
}

// delivered tells whether the watch has delivered the version rv (a write
// of the reader's own): until it has, its copy may be older than that
// write.
func (w *watchedLease) delivered(rv string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.ContainsFunc(w.recent, func(v seenVersion) bool { return v.rv == rv })
}

// seenAt is when the watch first delivered the version rv, if that was
// before read (the moment a reader got it); read otherwise. The time an
// event arrived is after the write it reports was made, so a wait
// counted from it is never shorter than one counted from the write.
func (w *watchedLease) seenAt(rv string, read time.Time) time.Time {
	if w == nil {
		return read
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, v := range w.recent {
		if v.rv == rv && v.at.Before(read) {
			return v.at
		}
	}
	return read
}
