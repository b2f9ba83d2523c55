package console

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/console/source"
	"antreaplus.io/antreaplus/pkg/console/view"
)

// The views the console serves.
const (
	ViewFederation = "federation"
	ViewServices   = "services"
	ViewPolicies   = "policies"
	ViewClouds     = "clouds"
)

// viewKinds are the kinds each view reads.
var viewKinds = map[string][]string{
	ViewFederation: {source.Memberships, source.Registry, source.Leases, source.Nodes},
	ViewServices:   {source.Memberships, source.ServiceExports, source.Services, source.EndpointSlices, source.ServiceImports, source.DNSEndpoints, source.Nodes},
	ViewPolicies:   {source.Memberships, source.FederatedPolicies, source.NetworkPolicies, source.ClusterNetworkPolicies},
	ViewClouds: {source.Memberships, source.Accounts, source.Selectors, source.VirtualMachines, source.CloudServices, source.Networks,
		source.Namespaces, source.Leases, source.NetworkPolicies, source.FederatedPolicies},
}

// rebuildEvery bounds how often a view is computed again while its
// members change: changes within it are one new version.
const rebuildEvery = 150 * time.Millisecond

// timeDependent is how often the views that depend on the time alone are
// computed again when nothing changed.
const timeDependent = 5 * time.Second

// keepChanges is how many changes of leader the federation view keeps.
const keepChanges = 20

// hub holds the members' live copies and the views computed from them,
// each as its latest JSON and version, and wakes the clients that follow
// a view when it changes.
type hub struct {
	members []*source.Member
	domain  string
	metrics *metrics
	// filter, when set, hides from a view what a viewer may not read
	// (the in-cluster console: one computation per set of rights).
	mu      sync.Mutex
	dirty   map[string]bool
	views   map[string]*built
	changes []view.Change
	lastFed *view.Federation
	wake    chan struct{}
	waiters map[string][]chan struct{}
}

// built is a view as last computed.
type built struct {
	version int64
	json    []byte
	at      time.Time
}

func newHub(members []*source.Member, domain string, m *metrics) *hub {
	h := &hub{members: members, domain: domain, metrics: m, dirty: map[string]bool{}, views: map[string]*built{},
		wake: make(chan struct{}, 1), waiters: map[string][]chan struct{}{}}
	for v := range viewKinds {
		h.dirty[v] = true
	}
	return h
}

// changed marks dirty the views that read kind (every view for "": a
// member's health changed) and wakes the builder.
func (h *hub) changed(kind string) {
	h.mu.Lock()
	for v, kinds := range viewKinds {
		if kind == "" || slices.Contains(kinds, kind) {
			h.dirty[v] = true
		}
	}
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// run computes the dirty views until ctx ends: at most every
// rebuildEvery, and never more than half the time (after a computation
// that took longer than rebuildEvery, as long again), so that a federation
// changing without pause still leaves the console's core to the rest.
func (h *hub) run(ctx context.Context) {
	clock := time.NewTicker(timeDependent)
	defer clock.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.wake:
		case <-clock.C:
			// What time alone changes: a heartbeat gone stale, a claim
			// expired (the federation and clouds views).
			h.mu.Lock()
			h.dirty[ViewFederation], h.dirty[ViewClouds] = true, true
			h.mu.Unlock()
		}
		started := time.Now()
		h.rebuild()
		select {
		case <-ctx.Done():
			return
		case <-time.After(max(rebuildEvery, time.Since(started))):
		}
	}
}

// rebuild computes every dirty view and wakes its followers.
func (h *hub) rebuild() {
	h.mu.Lock()
	var todo []string
	for v, d := range h.dirty {
		if d {
			todo = append(todo, v)
			h.dirty[v] = false
		}
	}
	h.mu.Unlock()
	for _, v := range todo {
		started := time.Now()
		raw, err := json.Marshal(h.compute(v, time.Now(), nil))
		if err != nil {
			h.metrics.rebuilds.WithLabelValues(v, "error").Inc()
			continue
		}
		h.metrics.rebuildSeconds.WithLabelValues(v).Observe(time.Since(started).Seconds())
		h.mu.Lock()
		old := h.views[v]
		if old != nil && string(old.json) == string(raw) {
			h.mu.Unlock()
			h.metrics.rebuilds.WithLabelValues(v, "unchanged").Inc()
			continue
		}
		b := &built{version: 1, json: raw, at: time.Now()}
		if old != nil {
			b.version = old.version + 1
		}
		h.views[v] = b
		waiters := h.waiters[v]
		h.waiters[v] = nil
		h.mu.Unlock()
		h.metrics.rebuilds.WithLabelValues(v, "changed").Inc()
		for _, w := range waiters {
			close(w)
		}
	}
}

// compute is one view of the members now, for a viewer who may not read
// the kinds denied (nil: everything the console reads).
func (h *hub) compute(name string, now time.Time, denied map[string]string) any {
	members := make([]*view.Member, 0, len(h.members))
	for _, m := range h.members {
		members = append(members, snapshotFor(m, viewKinds[name], denied))
	}
	switch {
	case name == ViewFederation && len(denied) > 0:
		h.mu.Lock()
		changes := h.changes
		h.mu.Unlock()
		return view.FederationOf(members, changes, now)
	case name == ViewFederation:
		h.mu.Lock()
		changes := h.changes
		h.mu.Unlock()
		f := view.FederationOf(members, changes, now)
		h.mu.Lock()
		if h.lastFed != nil {
			h.changes = view.Leaders(*h.lastFed, f, h.changes, now, keepChanges)
			f.Changes = h.changes
			if f.Changes == nil {
				f.Changes = []view.Change{}
			}
		}
		h.lastFed = &f
		h.mu.Unlock()
		return f
	case name == ViewServices:
		return view.ServicesOf(members, h.domain, now)
	case name == ViewPolicies:
		return view.PoliciesOf(members, now)
	case name == ViewClouds:
		return view.CloudsOf(members, now)
	}
	return nil
}

// snapshotFor is snapshot without the kinds denied, which are marked not
// readable with why.
func snapshotFor(m *source.Member, kinds []string, denied map[string]string) *view.Member {
	if len(denied) == 0 {
		return snapshot(m, kinds)
	}
	var allowed []string
	for _, k := range kinds {
		if _, no := denied[k]; !no {
			allowed = append(allowed, k)
		}
	}
	vm := snapshot(m, allowed)
	for k, why := range denied {
		vm.Kinds[k] = view.KindState{State: view.NotReadable, Message: why}
	}
	return vm
}

// get is a view's latest JSON and version; ok is false until it was
// computed once.
func (h *hub) get(name string) (b built, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if v := h.views[name]; v != nil {
		return *v, true
	}
	return built{}, false
}

// next is closed when the view has a version after version.
func (h *hub) next(name string, version int64) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := make(chan struct{})
	if v := h.views[name]; v != nil && v.version > version {
		close(ch)
		return ch
	}
	h.waiters[name] = append(h.waiters[name], ch)
	return ch
}

// snapshot is what the views read of a member: copies of its objects of
// the kinds given.
func snapshot(m *source.Member, kinds []string) *view.Member {
	vm := &view.Member{Context: m.Context, Health: m.Health(), Kinds: m.States()}
	for _, k := range kinds {
		switch k {
		case source.Memberships:
			for _, o := range source.Objects[*federationv1alpha1.ClusterMembership](m, k) {
				if o.Name == federationv1alpha1.MembershipName {
					vm.Membership = o
				}
			}
		case source.Registry:
			vm.Registry = values(source.Objects[*federationv1alpha1.MemberCluster](m, k))
		case source.Leases:
			vm.Leases = values(source.Objects[*coordinationv1.Lease](m, k))
		case source.Nodes:
			vm.Nodes = values(source.Objects[*corev1.Node](m, k))
		case source.Namespaces:
			vm.Namespaces = values(source.Objects[*corev1.Namespace](m, k))
		case source.ServiceExports:
			vm.Exports = values(source.Objects[*mcsv1beta1.ServiceExport](m, k))
		case source.Services:
			vm.Services = values(source.Objects[*corev1.Service](m, k))
		case source.EndpointSlices:
			vm.Slices = values(source.Objects[*discoveryv1.EndpointSlice](m, k))
		case source.ServiceImports:
			vm.Imports = values(source.Objects[*mcsv1beta1.ServiceImport](m, k))
		case source.DNSEndpoints:
			vm.DNSEndpoints = values(source.Objects[*externaldnsv1alpha1.DNSEndpoint](m, k))
		case source.FederatedPolicies:
			vm.Federated = values(source.Objects[*policyv1alpha1.FederatedNetworkPolicy](m, k))
		case source.NetworkPolicies:
			vm.NetworkPolicies = values(source.Objects[*antreav1beta1.NetworkPolicy](m, k))
		case source.ClusterNetworkPolicies:
			vm.ClusterNetworkPolicies = values(source.Objects[*antreav1beta1.ClusterNetworkPolicy](m, k))
		case source.Accounts:
			vm.Accounts = values(source.Objects[*cloudv1alpha1.CloudProviderAccount](m, k))
		case source.Selectors:
			vm.Selectors = values(source.Objects[*cloudv1alpha1.CloudEntitySelector](m, k))
		case source.VirtualMachines:
			vm.VMs = values(source.Objects[*cloudv1alpha1.VirtualMachine](m, k))
		case source.CloudServices:
			vm.CloudServices = values(source.Objects[*cloudv1alpha1.CloudNativeService](m, k))
		case source.Networks:
			vm.Networks = values(source.Objects[*federationv1alpha1.Network](m, k))
		default:
			panic(fmt.Sprintf("console: no snapshot of kind %s", k))
		}
	}
	return vm
}

// values copies the objects (shallow: the views only read them).
func values[T any, PT interface {
	*T
	client.Object
}](objs []PT) []T {
	out := make([]T, len(objs))
	for i, o := range objs {
		out[i] = *o
	}
	return out
}
