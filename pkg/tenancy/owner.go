package tenancy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/tenancy/claim"
)

// A controller that claims tenants reads the Namespaces it selects, keeps
// its claim and heartbeat Leases in the controllers' namespace, reads the
// federation's overlaps there and records events on the Namespaces
// (chart: files/rbac/cloud-controller.yaml).
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete,namespace=antreaplus-system
// +kubebuilder:rbac:groups="",resources=configmaps,resourceNames=antreaplus-tenant-overlaps,verbs=get,namespace=antreaplus-system
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// Options configure an Owner.
type Options struct {
	// Client writes the Leases.
	Client client.Client
	// Reader reads the Leases and the overlaps ConfigMap from the API
	// server (not a cache: a claim decision needs what is stored now).
	Reader client.Reader
	// Namespaces reads the Namespaces, usually from a cache.
	Namespaces client.Reader
	// Namespace holds the Leases; default antreaplus-system.
	Namespace string
	// Instance names the controller instance; default DefaultInstance.
	Instance string
	// Replica names this replica (its Pod's name); required.
	Replica string
	// Selector picks the instance's tenants among the Namespaces; nil
	// selects every Namespace.
	Selector labels.Selector
	// Candidates lists the Namespaces that hold something to manage
	// (accounts): only those selected among them are claimed.
	Candidates func(ctx context.Context) ([]string, error)
	// LeaseDuration is how long a claim or heartbeat lasts unrenewed;
	// default 15s.
	LeaseDuration time.Duration
	// RenewPeriod is how often claims and the heartbeat are renewed;
	// default a third of LeaseDuration.
	RenewPeriod time.Duration
	// Interval is how often the Leases are read and the plan decided;
	// default 2s, at most RenewPeriod.
	Interval time.Duration
	// Recorder, if set, records events on the Namespaces.
	Recorder record.EventRecorder
	// Log logs the claims' changes.
	Log logr.Logger
	// Now is the clock; default time.Now.
	Now func() time.Time
}

func (o Options) withDefaults() (Options, error) {
	if o.Replica == "" {
		return o, errors.New("tenancy: a replica name is required")
	}
	if strings.Contains(o.Instance, "/") || strings.Contains(o.Replica, "/") {
		return o, fmt.Errorf("tenancy: instance %q and replica %q may not contain '/'", o.Instance, o.Replica)
	}
	if o.Namespace == "" {
		o.Namespace = "antreaplus-system"
	}
	if o.Instance == "" {
		o.Instance = DefaultInstance
	}
	if o.Selector == nil {
		o.Selector = labels.Everything()
	}
	if o.LeaseDuration == 0 {
		o.LeaseDuration = 15 * time.Second
	}
	if o.RenewPeriod == 0 {
		o.RenewPeriod = o.LeaseDuration / 3
	}
	if o.RenewPeriod >= o.LeaseDuration-claim.Margin(o.LeaseDuration) {
		return o, fmt.Errorf("tenancy: renew period %s leaves no time before the claims' duration %s (less a fifth) runs out", o.RenewPeriod, o.LeaseDuration)
	}
	if o.Interval == 0 || o.Interval > o.RenewPeriod {
		o.Interval = min(2*time.Second, o.RenewPeriod)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

// Owner claims the tenants planned for this replica, renews and releases
// its claims, and answers Gate for the controllers of the replica. It is a
// manager.Runnable that runs on every replica (no leader election).
type Owner struct {
	o    Options
	me   string
	kick chan struct{}

	mu       sync.Mutex
	renewed  map[string]time.Time // tenant -> local time before the last successful claim write
	states   map[string]State     // tenant -> what was last decided
	reported map[string]bool      // tenant -> contention reported
	owned    map[string]bool      // tenant -> Owns as last announced
	told     map[string]string    // tenant -> contenders and overlaps as last announced
	inflight map[string]int       // tenant -> work begun and not done
	leaving  map[string]bool      // tenant -> released once its work is done; no new work
	replicas []string
	subs     []chan event.GenericEvent
}

// New checks opts and returns an Owner.
func New(opts Options) (*Owner, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Owner{
		o: o, me: HolderIdentity(o.Instance, o.Replica),
		kick:    make(chan struct{}, 1),
		renewed: map[string]time.Time{}, states: map[string]State{}, reported: map[string]bool{}, owned: map[string]bool{}, told: map[string]string{},
		inflight: map[string]int{}, leaving: map[string]bool{},
	}, nil
}

var _ Gate = (*Owner)(nil)

// Owns reports whether this replica may manage tenant now: it holds the
// claim and renewed it recently enough that no other replica can have
// taken it (package claim, Owned).
func (w *Owner) Owns(tenant string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ownsLocked(tenant)
}

func (w *Owner) ownsLocked(tenant string) bool {
	return !w.leaving[tenant] && claim.Owned(w.renewed[tenant], w.o.LeaseDuration, w.o.Now())
}

// Begin starts a unit of work for tenant if this replica manages it now.
func (w *Owner) Begin(tenant string) (func(), bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.ownsLocked(tenant) {
		return nil, false
	}
	w.inflight[tenant]++
	var once sync.Once
	return func() {
		once.Do(func() {
			w.mu.Lock()
			if w.inflight[tenant]--; w.inflight[tenant] <= 0 {
				delete(w.inflight, tenant)
			}
			waiting := w.leaving[tenant] && w.inflight[tenant] == 0
			w.mu.Unlock()
			if waiting {
				w.Kick() // its release waited for this: a round now, not at the next tick
			}
		})
	}, true
}

// State is what was last decided about tenant's claim.
func (w *Owner) State(tenant string) State {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.states[tenant]
	s.Owned = w.ownsLocked(tenant)
	return s
}

// Identity is this replica's holderIdentity.
func (w *Owner) Identity() string { return w.me }

// Replicas are the live replicas of the instance as last seen, sorted.
func (w *Owner) Replicas() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.replicas)
}

// Subscribe returns a channel that delivers a Namespace (name only) each
// time this replica starts or stops managing it, for a controller to
// reconcile the tenant's objects. Subscribe before Start.
func (w *Owner) Subscribe() <-chan event.GenericEvent {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch := make(chan event.GenericEvent, 1024)
	w.subs = append(w.subs, ch)
	return ch
}

// Kick asks for a round soon, e.g. when an account appears in a Namespace
// without a claim.
func (w *Owner) Kick() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// NeedLeaderElection is false: every replica claims its share.
func (w *Owner) NeedLeaderElection() bool { return false }

// Start runs rounds until ctx ends, then releases the claims it holds so
// that the other replicas take them at once.
func (w *Owner) Start(ctx context.Context) error {
	w.o.Log.Info("Claiming tenants", "instance", w.o.Instance, "replica", w.o.Replica, "selector", w.o.Selector.String(),
		"namespace", w.o.Namespace, "leaseDuration", w.o.LeaseDuration)
	w.ensureNamespace(ctx)
	t := time.NewTicker(w.o.Interval)
	defer t.Stop()
	for {
		if err := w.Round(ctx); err != nil && ctx.Err() == nil {
			w.o.Log.Error(err, "Tenancy round failed; claims are renewed on the next")
		}
		select {
		case <-ctx.Done():
			w.releaseAll()
			return nil
		case <-t.C:
		case <-w.kick:
		}
	}
}

// ensureNamespace creates the Leases' namespace when it is missing and the
// controller may (a development cluster); where it may not, the namespace
// is the installation's (the chart creates it) and a missing one shows in
// the rounds' errors.
func (w *Owner) ensureNamespace(ctx context.Context) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.o.Namespace}}
	if err := w.o.Namespaces.Get(ctx, client.ObjectKeyFromObject(ns), ns); err == nil {
		return
	}
	if err := w.o.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) && !apierrors.IsForbidden(err) {
		w.o.Log.Error(err, "Creating the tenancy namespace failed", "namespace", w.o.Namespace)
	}
}

// Round reads the Leases, renews the heartbeat, plans and acts on every
// tenant's claim once.
func (w *Owner) Round(ctx context.Context) error {
	now := w.o.Now()
	var leases coordinationv1.LeaseList
	if err := w.o.Reader.List(ctx, &leases, client.InNamespace(w.o.Namespace), client.HasLabels{tenancyv1alpha1.LabelLease}); err != nil {
		w.announce()
		return fmt.Errorf("listing the tenancy Leases in %s: %w", w.o.Namespace, err)
	}
	claims := map[string]*coordinationv1.Lease{}
	replicas := []string{w.o.Replica}
	var beat *coordinationv1.Lease
	for i := range leases.Items {
		l := &leases.Items[i]
		switch l.Labels[tenancyv1alpha1.LabelLease] {
		case tenancyv1alpha1.LeaseClaim:
			if t := l.Labels[tenancyv1alpha1.LabelTenant]; t != "" && l.Name == tenancyv1alpha1.ClaimLeaseName(t) {
				claims[t] = l
			}
		case tenancyv1alpha1.LeaseReplica:
			if l.Labels[tenancyv1alpha1.LabelInstance] != w.o.Instance {
				continue
			}
			inst, rep := SplitHolder(ptr.Deref(l.Spec.HolderIdentity, ""))
			if inst != w.o.Instance || rep == "" {
				continue
			}
			if rep == w.o.Replica {
				beat = l
				continue
			}
			if leaseOf(l).Current(now) {
				replicas = append(replicas, rep)
			}
		}
	}
	if err := w.heartbeat(ctx, beat, now); err != nil {
		w.o.Log.Error(err, "Renewing this replica's heartbeat failed")
	}
	candidates, err := w.candidates(ctx)
	if err != nil {
		w.announce()
		return err
	}
	elsewhere, err := w.overlaps(ctx)
	if err != nil {
		w.o.Log.Error(err, "Reading the federation's tenant overlaps failed")
	}
	plan := Assign(candidates, replicas)
	tenants := slices.Clone(candidates)
	for t, l := range claims {
		if ptr.Deref(l.Spec.HolderIdentity, "") == w.me && !slices.Contains(tenants, t) {
			tenants = append(tenants, t) // no longer selected: released below
		}
	}
	sort.Strings(tenants)
	states := make(map[string]State, len(tenants))
	var errs []error
	for _, t := range tenants {
		st, err := w.act(ctx, t, claims[t], plan[t] == w.o.Replica, now)
		if err != nil {
			errs = append(errs, err)
		}
		st.Elsewhere = elsewhere[t]
		states[t] = st
	}
	sort.Strings(replicas)
	w.mu.Lock()
	w.states, w.replicas = states, replicas
	for t := range w.renewed {
		if _, ok := states[t]; !ok {
			delete(w.renewed, t)
		}
	}
	w.mu.Unlock()
	w.announce()
	return errors.Join(errs...)
}

// act decides and writes tenant's claim.
func (w *Owner) act(ctx context.Context, tenant string, l *coordinationv1.Lease, planned bool, now time.Time) (State, error) {
	in := claim.Input{Me: w.me, Instance: w.o.Instance, Planned: planned, Now: now}
	st := State{}
	if l != nil {
		in.Lease = leaseOf(l)
		st.Holder = ptr.Deref(l.Spec.HolderIdentity, "")
		st.Contenders = contenders(l, ContenderWindow(w.o.LeaseDuration), now)
	}
	d := claim.Decide(in)
	var err error
	switch d.Action {
	case claim.Acquire:
		err = w.acquire(ctx, tenant, l, now)
		if err == nil {
			st.Holder, st.Contenders = w.me, nil
		}
	case claim.Renew:
		w.mu.Lock()
		delete(w.leaving, tenant)
		w.mu.Unlock()
		if now.Sub(in.Lease.Renew) >= w.o.RenewPeriod || w.renewedAt(tenant).IsZero() {
			err = w.renew(ctx, tenant, l, now)
		}
	case claim.Release:
		// No new work from now on; the claim goes once the work begun is
		// done, and is kept alive meanwhile.
		w.mu.Lock()
		w.leaving[tenant] = true
		busy := w.inflight[tenant] > 0
		w.mu.Unlock()
		if busy {
			if now.Sub(in.Lease.Renew) >= w.o.RenewPeriod {
				err = w.renew(ctx, tenant, l, now)
			}
			break
		}
		err = w.release(ctx, tenant, l)
		st.Holder = ""
	case claim.Contend:
		err = w.contend(ctx, tenant, l, d.Holder, now)
	}
	if d.Action != claim.Renew && d.Action != claim.Acquire && d.Action != claim.Release {
		w.forget(tenant)
	}
	if d.Action != claim.Contend {
		w.mu.Lock()
		delete(w.reported, tenant)
		w.mu.Unlock()
	}
	if err != nil {
		return st, fmt.Errorf("tenant %s: %s: %w", tenant, d.Action, err)
	}
	return st, nil
}

// candidates are the selected Namespaces that hold something to manage.
func (w *Owner) candidates(ctx context.Context) ([]string, error) {
	names, err := w.o.Candidates(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the tenants with something to manage: %w", err)
	}
	var out []string
	for _, n := range names {
		ns := &corev1.Namespace{}
		if err := w.o.Namespaces.Get(ctx, client.ObjectKey{Name: n}, ns); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return nil, fmt.Errorf("reading Namespace %s: %w", n, err)
		}
		if ns.DeletionTimestamp == nil && w.o.Selector.Matches(labels.Set(ns.Labels)) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return slices.Compact(out), nil
}

// overlaps reads the claims of the same tenants in other members, which
// the member's federation leader writes.
func (w *Owner) overlaps(ctx context.Context) (map[string][]tenancyv1alpha1.Overlap, error) {
	cm := &corev1.ConfigMap{}
	if err := w.o.Reader.Get(ctx, client.ObjectKey{Namespace: w.o.Namespace, Name: tenancyv1alpha1.OverlapsConfigMap}, cm); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
			return nil, nil
		}
		return nil, err
	}
	out := map[string][]tenancyv1alpha1.Overlap{}
	for tenant, raw := range cm.Data {
		var o []tenancyv1alpha1.Overlap
		if err := json.Unmarshal([]byte(raw), &o); err != nil {
			return out, fmt.Errorf("ConfigMap %s/%s, key %s: %w", w.o.Namespace, tenancyv1alpha1.OverlapsConfigMap, tenant, err)
		}
		out[tenant] = o
	}
	return out, nil
}

// announce sends an event for every tenant whose Owns changed, and sets
// the gauges.
func (w *Owner) announce() {
	w.mu.Lock()
	now := w.o.Now()
	var changed []string
	owned, contended, overlapped := 0, 0, 0
	seen := map[string]bool{}
	for t := range w.renewed {
		seen[t] = true
	}
	for t := range w.owned {
		seen[t] = true
	}
	for t := range seen {
		is := claim.Owned(w.renewed[t], w.o.LeaseDuration, now)
		if is != w.owned[t] {
			changed = append(changed, t)
		}
		if is {
			w.owned[t] = true
			owned++
		} else {
			delete(w.owned, t)
		}
	}
	for t, s := range w.states {
		if s.Holder != w.me && w.reported[t] {
			contended++
		}
		if w.owned[t] && (len(s.Contenders) > 0 || len(s.Elsewhere) > 0) {
			overlapped++
		}
		// The owner's controllers report contenders and overlaps: a
		// change of them is announced too.
		if sig := fmt.Sprint(s.Contenders, s.Elsewhere); w.owned[t] && sig != w.told[t] {
			w.told[t] = sig
			if !slices.Contains(changed, t) {
				changed = append(changed, t)
			}
		}
	}
	for t := range w.told {
		if _, ok := w.states[t]; !ok || !w.owned[t] {
			delete(w.told, t)
		}
	}
	replicas := len(w.replicas)
	subs := slices.Clone(w.subs)
	w.mu.Unlock()
	ownedTenants.WithLabelValues(w.o.Instance).Set(float64(owned))
	contendedTenants.WithLabelValues(w.o.Instance).Set(float64(contended))
	overlappedTenants.WithLabelValues(w.o.Instance).Set(float64(overlapped))
	liveReplicas.WithLabelValues(w.o.Instance).Set(float64(replicas))
	sort.Strings(changed)
	for _, t := range changed {
		for _, ch := range subs {
			select {
			case ch <- event.GenericEvent{Object: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: t}}}:
			default:
				w.o.Log.Info("Ownership event dropped: a controller is behind; it sees the tenant on its next resync", "tenant", t)
			}
		}
	}
}

func (w *Owner) renewedAt(t string) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.renewed[t]
}

func (w *Owner) setRenewed(t string, at time.Time) {
	w.mu.Lock()
	w.renewed[t] = at
	w.mu.Unlock()
}

// forget stops managing t: no claim held, nothing leaving.
func (w *Owner) forget(t string) {
	w.mu.Lock()
	delete(w.renewed, t)
	delete(w.leaving, t)
	w.mu.Unlock()
}

func (w *Owner) count(action string, err error) {
	result := "ok"
	switch {
	case apierrors.IsConflict(err):
		result = "conflict"
	case err != nil:
		result = "error"
	}
	claimActions.WithLabelValues(w.o.Instance, action, result).Inc()
}

// leaseOf is what package claim needs of a Lease.
func leaseOf(l *coordinationv1.Lease) claim.Lease {
	out := claim.Lease{Exists: true, Holder: ptr.Deref(l.Spec.HolderIdentity, ""),
		Duration: time.Duration(ptr.Deref(l.Spec.LeaseDurationSeconds, 0)) * time.Second}
	if l.Spec.RenewTime != nil {
		out.Renew = l.Spec.RenewTime.Time
	}
	return out
}

// contenders are the current contenders of a claim Lease: Contenders with
// a window of two lease durations.
func contenders(l *coordinationv1.Lease, window time.Duration, now time.Time) []string {
	holder, _ := SplitHolder(ptr.Deref(l.Spec.HolderIdentity, ""))
	return Contenders(l.Annotations, holder, window, now)
}
