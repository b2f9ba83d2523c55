package importcache

import (
	"context"
	"fmt"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// The DNS server watches its cluster's ClusterMembership alone, by name
// (chart: files/rbac/coredns.yaml).
// +kubebuilder:rbac:groups=federation.antreaplus.io,resources=clustermemberships,resourceNames=cluster.clusterset.k8s.io,verbs=list;watch

// membershipResource is the ClusterMembership resource: one object per
// cluster, named cluster.clusterset.k8s.io (KEP-2149).
var membershipResource = federationv1alpha1.GroupVersion.WithResource("clustermemberships")

// membership holds the member's federation ID: fixed, or read from its
// ClusterMembership and kept up to date; and, when read, its cluster ID.
type membership struct {
	id         atomic.Pointer[string]
	cluster    atomic.Pointer[string]
	controller cache.Controller
	store      cache.Store
}

func newMembership(cfg *rest.Config, fixed string) (*membership, error) {
	m := &membership{}
	if fixed != "" {
		m.id.Store(&fixed)
		return m, nil
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the dynamic client: %w", err)
	}
	res := dyn.Resource(membershipResource)
	only := fields.OneTermEqualSelector("metadata.name", federationv1alpha1.MembershipName).String()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = only
			return res.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = only
			return res.Watch(ctx, o)
		},
	}
	m.store, m.controller = cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: lw,
		ObjectType:    &unstructured.Unstructured{},
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    m.set,
			UpdateFunc: func(_, obj any) { m.set(obj) },
			// A member that leaves its federation answers no federation
			// names until it joins again.
			DeleteFunc: func(any) { m.id.Store(nil); m.cluster.Store(nil) },
		},
	})
	return m, nil
}

func (m *membership) set(obj any) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	var cm federationv1alpha1.ClusterMembership
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &cm); err != nil {
		return
	}
	id, cluster := cm.Spec.FederationID, cm.Spec.ClusterID
	m.id.Store(&id)
	m.cluster.Store(&cluster)
}

// carryOver answers prev's ID until this membership's informer has listed.
func (m *membership) carryOver(prev *membership) {
	if m.controller != nil {
		m.id.Store(prev.id.Load())
		m.cluster.Store(prev.cluster.Load())
	}
}

// forgetUnlisted, once the informer has listed, drops the ID carried over
// if the ClusterMembership is gone (deleted while the member was cut off)
// and the informer has not set one since.
func (m *membership) forgetUnlisted(carried *string) {
	if m.store != nil && len(m.store.ListKeys()) == 0 {
		cluster := m.cluster.Load()
		if m.id.CompareAndSwap(carried, nil) {
			m.cluster.CompareAndSwap(cluster, nil)
		}
	}
}

func (m *membership) federationID() string {
	if p := m.id.Load(); p != nil {
		return *p
	}
	return ""
}

func (m *membership) clusterID() string {
	if p := m.cluster.Load(); p != nil {
		return *p
	}
	return ""
}

// ClusterID is the member's cluster ID read from its ClusterMembership, ""
// until it is known or when the federation ID is fixed (nothing is read).
func (w *Watcher) ClusterID() string { return w.current().membership.clusterID() }
