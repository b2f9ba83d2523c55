package serviceimport

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/manager"
)

// sourceState is what a leader may do with a member's exports.
type sourceState int

const (
	// live: the member's informers are synced; its exports are read.
	live sourceState = iota
	// kept: they are not; what was imported from it stays as it is.
	kept
	// withdrawn: unreachable past the grace; its endpoints are withdrawn.
	withdrawn
)

func (s sourceState) String() string {
	return [...]string{"live", "kept", "withdrawn"}[s]
}

// hook is this run's event handlers on one member's informers.
type hook struct {
	cluster   cluster.Cluster
	informers []cache.Informer
	regs      []toolscache.ResourceEventHandlerRegistration
}

func (h *hook) synced() bool {
	for _, i := range h.informers {
		if !i.HasSynced() {
			return false
		}
	}
	return true
}

func (h *hook) remove() {
	for i, reg := range h.regs {
		_ = h.informers[i].RemoveEventHandler(reg)
	}
}

// sourceKinds are what the leader reads of every member.
func sourceKinds() []client.Object {
	return []client.Object{&mcsv1beta1.ServiceExport{}, &corev1.Service{}, &discoveryv1.EndpointSlice{}, &corev1.Node{}}
}

// hookMember adds this run's handlers to a member's informers, without
// waiting for them to sync.
func (r *run) hookMember(ctx context.Context, id string, cl cluster.Cluster) (*hook, error) {
	h := &hook{cluster: cl}
	for _, obj := range sourceKinds() {
		inf, err := cl.GetCache().GetInformer(ctx, obj, cache.BlockUntilSynced(false))
		if err != nil {
			h.remove()
			return nil, fmt.Errorf("informer of %T in %s: %w", obj, id, err)
		}
		reg, err := inf.AddEventHandler(r.sourceHandler(ctx, id, cl, obj))
		if err != nil {
			h.remove()
			return nil, err
		}
		h.informers, h.regs = append(h.informers, inf), append(h.regs, reg)
	}
	return h, nil
}

// hookLed watches the led member's ServiceImports and namespaces and waits
// until they, and its own sources, are synced.
func (r *run) hookLed(ctx context.Context) error {
	h, err := r.hookMember(ctx, r.m.ClusterID, r.m.Cluster)
	if err != nil {
		return err
	}
	for _, obj := range []client.Object{&mcsv1beta1.ServiceImport{}, &corev1.Namespace{}} {
		inf, err := r.m.Cluster.GetCache().GetInformer(ctx, obj)
		if err != nil {
			h.remove()
			return fmt.Errorf("watching %T in the led member: %w", obj, err)
		}
		reg, err := inf.AddEventHandler(r.ledHandler(ctx, obj))
		if err != nil {
			h.remove()
			return err
		}
		h.informers, h.regs = append(h.informers, inf), append(h.regs, reg)
	}
	if !toolscache.WaitForCacheSync(ctx.Done(), h.synced) {
		h.remove()
		return ctx.Err()
	}
	r.mu.Lock()
	r.hooks[r.m.ClusterID] = h
	r.mu.Unlock()
	return nil
}

// refresh hooks new or reconnected members and tells whether any member's
// state changed since the last call (then every name is reconciled).
func (r *run) refresh(ctx context.Context) bool {
	members := r.m.Federation.Members()
	for _, mi := range members {
		r.mu.Lock()
		h := r.hooks[mi.ClusterID]
		r.mu.Unlock()
		if mi.Cluster == nil || (h != nil && h.cluster == mi.Cluster) {
			continue
		}
		if h != nil {
			h.remove()
		}
		nh, err := r.hookMember(ctx, mi.ClusterID, mi.Cluster)
		if err != nil {
			r.log.V(1).Info("Cannot watch member yet", "source", mi.ClusterID, "err", err)
		}
		r.mu.Lock()
		if nh == nil {
			delete(r.hooks, mi.ClusterID)
		} else {
			r.hooks[mi.ClusterID] = nh
		}
		r.mu.Unlock()
	}
	counts := map[sourceState]int{}
	var states []string
	for _, mi := range members {
		s := r.state(mi)
		counts[s]++
		states = append(states, fmt.Sprintf("%s=%s/%p", mi.ClusterID, s, mi.Cluster))
	}
	for _, s := range []sourceState{live, kept, withdrawn} {
		sourcesGauge.WithLabelValues(r.m.ClusterID, s.String()).Set(float64(counts[s]))
	}
	sig := strings.Join(states, ",")
	r.mu.Lock()
	defer r.mu.Unlock()
	changed := sig != r.lastStates
	if changed && r.lastStates != "" {
		r.log.Info("Member states changed", "states", sig)
	}
	r.lastStates = sig
	return changed
}

func (r *run) unhookAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, h := range r.hooks {
		h.remove()
		delete(r.hooks, id)
	}
}

// state tells what may be done with a member's exports now.
func (r *run) state(mi manager.MemberInfo) sourceState {
	r.mu.Lock()
	h := r.hooks[mi.ClusterID]
	since, seen := r.unreachable[mi.ClusterID]
	switch {
	case mi.UnreachableSince == nil:
		delete(r.unreachable, mi.ClusterID)
	case !seen:
		r.unreachable[mi.ClusterID] = time.Now()
	case time.Since(since) >= r.c.UnreachableHoldDown:
		r.mu.Unlock()
		return withdrawn
	}
	r.mu.Unlock()
	if mi.Cluster == nil || h == nil || h.cluster != mi.Cluster || !h.synced() {
		return kept
	}
	return live
}

// liveMembers are the members whose exports can be read now.
func (r *run) liveMembers() []manager.MemberInfo {
	var out []manager.MemberInfo
	for _, mi := range r.m.Federation.Members() {
		if r.state(mi) == live {
			out = append(out, mi)
		}
	}
	return out
}

// stillRegistered tells whether a cluster this manager has no session for
// is still in its registry (its session is starting): then its imports are
// kept. Answers are cached for a few seconds; a failed read counts as yes.
func (r *run) stillRegistered(ctx context.Context, clusterID string) bool {
	r.mu.Lock()
	reg, ok := r.registered[clusterID]
	r.mu.Unlock()
	if ok && time.Since(reg.at) < 5*time.Second {
		return reg.present
	}
	present := true
	if r.c.registry != nil {
		err := r.c.registry.Get(ctx, client.ObjectKey{Namespace: r.c.registryNamespace, Name: clusterID}, &federationv1alpha1.MemberCluster{})
		present = !apierrors.IsNotFound(err)
	}
	r.mu.Lock()
	r.registered[clusterID] = registration{present: present, at: time.Now()}
	r.mu.Unlock()
	return present
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
