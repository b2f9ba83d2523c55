package sources

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/manager"
)

// Options say what a Tracker reads of every member and how it judges them.
type Options struct {
	// Kinds are what the controller reads of every source member.
	Kinds []client.Object
	// Handler is the controller's event handler of one kind in one member's informer.
	Handler func(ctx context.Context, id string, cl cluster.Cluster, kind client.Object) toolscache.ResourceEventHandler
	// ReadLed makes the led member a source too (a Service it exports is
	// imported into itself); otherwise only the other members are.
	ReadLed bool
	// UnreachableHoldDown is how long a member must be seen continuously
	// marked unreachable before it is Withdrawn: a manager that has just
	// started marks members it has not probed yet as unreachable for a moment.
	UnreachableHoldDown time.Duration
	// Registry reads MemberClusters in RegistryNamespace (the supervisor's
	// own registry); nil counts every cluster as registered, without labels.
	Registry          client.Reader
	RegistryNamespace string
	// Gauge, when set, gets the number of members in each state, with the
	// labels member (the led member) and state.
	Gauge *prometheus.GaugeVec
}

// Watch is an event handler on one kind of the led member.
type Watch struct {
	Kind    client.Object
	Handler toolscache.ResourceEventHandler
	// Cache holds the kind; nil: the led member's cache. (The federation's
	// own objects are in manager.Member.Own.)
	Cache cache.Cache
}

// Tracker follows the members a leader controller reads, for one led member.
type Tracker struct {
	m    manager.Member
	opts Options
	log  logr.Logger

	mu    sync.Mutex
	hooks map[string]*hook
	// hooking is the cache each member is being hooked to, in the
	// background (rehook), and closed is set by Close: a hook that
	// completes after it, or for a cache no longer the member's, is removed.
	hooking map[string]cluster.Cluster
	closed  bool
	// last is what Refresh saw of each member the last time, and settled
	// until when that holds without a look (quiet).
	last    []memberSnapshot
	settled settlement
	// dirty is set by what changes a member's state behind Refresh's back:
	// a hook in place, a refusal changed.
	dirty bool
	// looks and quietLooks count Refresh's calls (Looks).
	looks, quietLooks atomic.Uint64

	registered map[string]registration
	// refusals are what each member's ClusterMembership refuses.
	refusals map[string]refusal
	// unreachable is when this tracker first saw each member marked unreachable.
	unreachable map[string]time.Time
	now         func() time.Time
}

// New returns a Tracker of the members m.Federation shows, for the leader of m.
func New(m manager.Member, opts Options, log logr.Logger) *Tracker {
	return &Tracker{m: m, opts: opts, log: log, hooks: map[string]*hook{}, hooking: map[string]cluster.Cluster{}, registered: map[string]registration{},
		refusals: map[string]refusal{}, unreachable: map[string]time.Time{}, now: time.Now}
}

// hook is the tracker's event handlers on one member's informers.
type hook struct {
	cluster   cluster.Cluster
	informers []cache.Informer
	// kinds name the informers' kinds, in the same order (for the logs).
	kinds []string
	// allSynced is set once every informer has synced.
	allSynced atomic.Bool
	// unsubscribe end the hook's subscriptions (fanout.go).
	unsubscribe []func()
}

func (h *hook) synced() bool {
	if h.allSynced.Load() {
		return true
	}
	for _, i := range h.informers {
		if !i.HasSynced() {
			return false
		}
	}
	// An informer that has synced stays synced, and a hook's informers
	// are all added before it is first asked: once is enough. (Asked of
	// every informer of every member by every tracker each second, it was
	// a third of a supervisor's work at idle.)
	h.allSynced.Store(true)
	return true
}

// unsynced names the kinds whose informers have not synced.
func (h *hook) unsynced() []string {
	var out []string
	for i, inf := range h.informers {
		if !inf.HasSynced() {
			out = append(out, h.kinds[i])
		}
	}
	return out
}

func (h *hook) remove() {
	for _, u := range h.unsubscribe {
		u()
	}
	h.unsubscribe = nil
}

// add subscribes handler to the informer of kind (fanout.go), without
// waiting for it to sync (synced tells when it has).
func (h *hook) add(ctx context.Context, id string, kind client.Object, handler toolscache.ResourceEventHandler, opts ...cache.InformerGetOption) error {
	return h.addFrom(ctx, h.cluster.GetCache(), id, kind, handler, opts...)
}

// addFrom is add on the informer of kind in c.
func (h *hook) addFrom(ctx context.Context, c cache.Cache, id string, kind client.Object, handler toolscache.ResourceEventHandler, opts ...cache.InformerGetOption) error {
	inf, err := h.subscribeFrom(ctx, c, id, kind, handler, opts...)
	if err != nil {
		return err
	}
	h.informers = append(h.informers, inf)
	h.kinds = append(h.kinds, fmt.Sprintf("%T", kind))
	return nil
}

// subscribe subscribes handler to the informer of kind and returns it.
func (h *hook) subscribe(ctx context.Context, id string, kind client.Object, handler toolscache.ResourceEventHandler, opts ...cache.InformerGetOption) (cache.Informer, error) {
	return h.subscribeFrom(ctx, h.cluster.GetCache(), id, kind, handler, opts...)
}

// subscribeFrom is subscribe to the informer of kind in c.
func (h *hook) subscribeFrom(ctx context.Context, c cache.Cache, id string, kind client.Object, handler toolscache.ResourceEventHandler, opts ...cache.InformerGetOption) (cache.Informer, error) {
	inf, err := c.GetInformer(ctx, kind, opts...)
	if err != nil {
		return nil, fmt.Errorf("informer of %T in %s: %w", kind, id, err)
	}
	unsubscribe, err := subscribe(inf, handler)
	if err != nil {
		return nil, fmt.Errorf("handler on %T in %s: %w", kind, id, err)
	}
	h.unsubscribe = append(h.unsubscribe, unsubscribe)
	return inf, nil
}

// hookMember adds the controller's handlers to a member's informers,
// without waiting for them to sync.
func (t *Tracker) hookMember(ctx context.Context, id string, cl cluster.Cluster) (*hook, error) {
	h := &hook{cluster: cl}
	for _, kind := range t.opts.Kinds {
		if err := h.add(ctx, id, kind, t.opts.Handler(ctx, id, cl, kind), cache.BlockUntilSynced(false)); err != nil {
			h.remove()
			return nil, err
		}
	}
	if id != t.m.ClusterID {
		// Best effort, and not waited for: another member's refusals only
		// shape the exporter's status.
		if _, err := h.subscribe(ctx, id, &federationv1alpha1.ClusterMembership{}, t.membershipHandler(id), cache.BlockUntilSynced(false)); err != nil {
			t.log.V(1).Info("Cannot watch what a member refuses yet", "source", id, "err", err)
		}
	} else if err := t.addMembership(ctx, h, id); err != nil {
		h.remove()
		return nil, err
	}
	return h, nil
}

// HookLed adds the watches on the led member (and, with ReadLed, the
// controller's handlers on its sources) and waits until they are synced.
func (t *Tracker) HookLed(ctx context.Context, watches ...Watch) error {
	h := &hook{cluster: t.m.Cluster}
	if t.opts.ReadLed {
		var err error
		if h, err = t.hookMember(ctx, t.m.ClusterID, t.m.Cluster); err != nil {
			return err
		}
	} else if err := t.addMembership(ctx, h, t.m.ClusterID); err != nil {
		h.remove()
		return fmt.Errorf("watching the led member: %w", err)
	}
	for _, w := range watches {
		c := w.Cache
		if c == nil {
			c = t.m.Cluster.GetCache()
		}
		if err := h.addFrom(ctx, c, t.m.ClusterID, w.Kind, w.Handler, cache.BlockUntilSynced(false)); err != nil {
			h.remove()
			return fmt.Errorf("watching the led member: %w", err)
		}
	}
	if !t.waitSynced(ctx, h) {
		h.remove()
		return ctx.Err()
	}
	t.mu.Lock()
	t.hooks[t.m.ClusterID] = h
	t.mu.Unlock()
	return nil
}

// syncLogEvery is how often waitSynced logs what it still waits for.
const syncLogEvery = 30 * time.Second

// waitSynced waits until h's informers have synced, or ctx ends; every
// syncLogEvery it logs the kinds it still waits for, so that a led member
// whose controller does not start says why (at 30 members under load, a
// new leader's Service import waited minutes here without a word).
func (t *Tracker) waitSynced(ctx context.Context, h *hook) bool {
	start := time.Now()
	next := start.Add(syncLogEvery)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !h.synced() {
		select {
		case <-ctx.Done():
			return false
		case now := <-tick.C:
			if now.After(next) {
				t.log.Info("Waiting for the led member's informers to sync", "kinds", h.unsynced(), "waited", now.Sub(start).Round(time.Second))
				next = now.Add(syncLogEvery)
			}
		}
	}
	return true
}

// Close removes every handler the tracker added.
func (t *Tracker) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	for id, h := range t.hooks {
		h.remove()
		delete(t.hooks, id)
	}
}

// Refresh hooks new or reconnected members and tells whether any member's
// state changed since the last call (then everything is reconciled again).
// It runs every second in every tracker of every member led: while nothing
// it compares can have changed (quiet), it returns at once; otherwise it
// looks at every member, comparing what it saw without building anything
// unless something changed.
func (t *Tracker) Refresh(ctx context.Context) bool {
	version := t.m.Federation.Version()
	if t.quiet(version) {
		t.quietLooks.Add(1)
		return false
	}
	t.looks.Add(1)
	t.mu.Lock()
	// Cleared before anything is read: what changes from here on marks it again.
	t.dirty = false
	t.mu.Unlock()
	members := t.m.Federation.Members()
	for _, mi := range members {
		t.rehook(ctx, mi)
	}
	t.mu.Lock()
	last := t.last
	t.mu.Unlock()
	counts := map[State]int{}
	snaps := make([]memberSnapshot, len(members))
	changed := len(last) != len(members)
	for i, mi := range members {
		snaps[i] = memberSnapshot{id: mi.ClusterID, state: t.State(mi), cluster: mi.Cluster, labels: mi.Labels, refusal: t.refusalSignatureOf(mi.ClusterID)}
		counts[snaps[i].state]++
		if i < len(last) && maps.Equal(last[i].labels, mi.Labels) {
			snaps[i].labels = last[i].labels // the copy already kept
		} else {
			snaps[i].labels = maps.Clone(mi.Labels)
		}
		if !changed && !last[i].same(snaps[i]) {
			changed = true
		}
	}
	if t.opts.Gauge != nil {
		for _, s := range States() {
			t.opts.Gauge.WithLabelValues(t.m.ClusterID, s.String()).Set(float64(counts[s]))
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if changed && t.last != nil {
		states := make([]string, len(snaps))
		for i, s := range snaps {
			states[i] = s.String()
		}
		t.log.Info("Member states changed", "states", strings.Join(states, ","))
	}
	t.last = snaps
	t.settled = t.settleLocked(version, members, snaps)
	return changed
}

// settlement is when the states Refresh last saw can change with nothing
// to mark it: never (ok false: a member is still being hooked or synced,
// and is looked at every time), or at wake, when a member marked
// unreachable ends its hold-down. Otherwise only a new federation view
// (version) or an event (dirty) changes them.
type settlement struct {
	ok      bool
	version uint64
	wake    time.Time
}

// settleLocked is the settlement of a look at members (t.mu held).
func (t *Tracker) settleLocked(version uint64, members []manager.MemberInfo, snaps []memberSnapshot) settlement {
	st := settlement{ok: true, version: version}
	for i, mi := range members {
		state := snaps[i].state
		if state == Kept && mi.Cluster != nil {
			// Hooked, or being hooked, but not synced yet: its informers say
			// nothing when they have.
			st.ok = false
		}
		if mi.UnreachableSince != nil && state != Withdrawn {
			if since, seen := t.unreachable[mi.ClusterID]; seen {
				if w := since.Add(t.opts.UnreachableHoldDown); st.wake.IsZero() || w.Before(st.wake) {
					st.wake = w
				}
			}
		}
	}
	return st
}

// quiet tells whether nothing Refresh compares can have changed since it
// last looked: the same federation view, no event that marks the tracker
// dirty, no hook under way, and no hold-down ended.
func (t *Tracker) quiet(version uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.settled
	// (settled.ok is set by a look only: none yet, never quiet.)
	return st.ok && !t.dirty && st.version == version && len(t.hooking) == 0 &&
		(st.wake.IsZero() || t.now().Before(st.wake))
}

// Looks counts Refresh's calls: those that looked at every member, and
// those that found the tracker quiet and returned at once.
func (t *Tracker) Looks() (looked, quiet uint64) {
	return t.looks.Load(), t.quietLooks.Load()
}

// memberSnapshot is what Refresh compares of a member from one call to the
// next: its state, its cache, and what decides where exports go (its
// labels and what it refuses).
type memberSnapshot struct {
	id      string
	state   State
	cluster cluster.Cluster
	labels  map[string]string
	refusal string
}

func (s memberSnapshot) same(o memberSnapshot) bool {
	return s.id == o.id && s.state == o.state && s.cluster == o.cluster && s.refusal == o.refusal && maps.Equal(s.labels, o.labels)
}

// String is the snapshot in the log line of a change.
func (s memberSnapshot) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s=%s/%p/", s.id, s.state, s.cluster)
	for _, k := range slices.Sorted(maps.Keys(s.labels)) {
		fmt.Fprintf(&b, "%s=%s;", k, s.labels[k])
	}
	b.WriteString(s.refusal)
	return b.String()
}

// rehook hooks a member whose cache is new to the tracker, in the
// background: a new cache's first informers ask the member's API server
// for its resources (discovery), and a member that is slow or has just
// come back can take many seconds to answer. Refresh, which every tracker
// runs each second, would wait that long for every other member's state
// too (seen: a member marked unreachable was noticed 18 s late, behind the
// hook of another member's new cache). Until the hook is in place the
// member is Kept, as an unsynced one is; the next Refresh after it has
// synced sees it Live.
func (t *Tracker) rehook(ctx context.Context, mi manager.MemberInfo) {
	if mi.ClusterID == t.m.ClusterID && !t.opts.ReadLed {
		return
	}
	id, cl := mi.ClusterID, mi.Cluster
	t.mu.Lock()
	h := t.hooks[id]
	if cl == nil || (h != nil && h.cluster == cl) || t.hooking[id] == cl || t.closed {
		t.mu.Unlock()
		return
	}
	if h != nil {
		delete(t.hooks, id)
	}
	t.hooking[id] = cl
	t.mu.Unlock()
	if h != nil {
		h.remove()
	}
	go func() {
		nh, err := t.hookMember(ctx, id, cl)
		if err != nil {
			t.log.V(1).Info("Cannot watch member yet", "source", id, "err", err)
		}
		t.mu.Lock()
		current := t.hooking[id] == cl
		if current {
			delete(t.hooking, id)
		}
		keep := current && nh != nil && !t.closed
		if keep {
			t.hooks[id] = nh
		}
		t.dirty = true
		t.mu.Unlock()
		if nh != nil && !keep {
			nh.remove()
		}
	}()
}

// WaitForSources gives the members' informers up to timeout to sync, so
// that the first pass reads them rather than keeping the last import.
func (t *Tracker) WaitForSources(ctx context.Context, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		all := true
		for _, mi := range t.m.Federation.Members() {
			if mi.Cluster != nil && mi.UnreachableSince == nil && mi.Reachable && t.State(mi) != Live {
				all = false
			}
		}
		if all {
			return
		}
		time.Sleep(50 * time.Millisecond)
		t.Refresh(ctx)
	}
}

// ServiceKinds are what a federated Service is read from in every member:
// its exports, Services, EndpointSlices and the nodes (NodePort addresses,
// regions and zones). Controllers that read them share one informer per
// kind in each member's cache.
func ServiceKinds() []client.Object {
	return []client.Object{&mcsv1beta1.ServiceExport{}, &corev1.Service{}, &discoveryv1.EndpointSlice{}, &corev1.Node{}}
}
