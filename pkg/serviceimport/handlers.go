package serviceimport

import (
	"context"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/exportscope"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// ours tells whether a leader wrote the object.
func ours(o client.Object) bool {
	return o.GetLabels()[federationv1alpha1.LabelManagedBy] == federationv1alpha1.ManagedByFederation
}

// importKey is the exported name an object written by a leader belongs to.
func importKey(o client.Object) types.NamespacedName {
	return types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetLabels()[mcsv1beta1.LabelServiceName]}
}

// sourceHandler maps the events of one member's informer to exported names.
// Objects a leader wrote matter only in the led member; the member's own
// Services and EndpointSlices only when the member exports them.
func (r *run) sourceHandler(ctx context.Context, id string, cl cluster.Cluster, kind client.Object) toolscache.ResourceEventHandler {
	led := id == r.m.ClusterID
	enqueueIfExported := func(k types.NamespacedName) {
		if r.exported(ctx, cl, k) {
			r.queue.Add(k)
		}
	}
	switch kind.(type) {
	case *mcsv1beta1.ServiceExport:
		return sources.Handler(func(ev sources.EventType, o, old client.Object) {
			if ev == sources.Updated && statusOnly(old, o) {
				return
			}
			// Its own name, and the federated Services it joins and joined.
			for _, k := range r.joins.Set(id, client.ObjectKeyFromObject(o), o.GetAnnotations(), ev == sources.Deleted) {
				r.queue.Add(k)
			}
			if !led {
				r.queue.AddAfter(withheldKey, withheldDelay)
			}
		})
	case *corev1.Service:
		return sources.Handler(func(_ sources.EventType, o, _ client.Object) {
			// (The federation's own are left out of a member's cache, and
			// repaired from the leader's own cache: ownHandler.)
			if !ours(o) {
				enqueueIfExported(client.ObjectKeyFromObject(o))
			}
		})
	case *discoveryv1.EndpointSlice:
		return sources.Handler(func(_ sources.EventType, o, _ client.Object) {
			if o.GetLabels()[discoveryv1.LabelManagedBy] == federationv1alpha1.EndpointSliceManagedBy {
				return // (as for Services above)
			}
			if svc := o.GetLabels()[discoveryv1.LabelServiceName]; svc != "" {
				enqueueIfExported(types.NamespacedName{Namespace: o.GetNamespace(), Name: svc})
			}
		})
	default: // nodes: what NodePort exports offer, the region, the led member's zones
		return sources.Handler(func(ev sources.EventType, o, old client.Object) {
			if ev == sources.Updated && !nodeChanged(old, o) {
				return
			}
			if led && (ev != sources.Updated || topologyChanged(old, o)) {
				r.ledZonesChanged(ctx)
			}
			r.enqueueExports(ctx, cl, "")
		})
	}
}

// ledHandler maps the led member's ServiceImports and namespaces to names.
func (r *run) ledHandler(ctx context.Context, kind client.Object) toolscache.ResourceEventHandler {
	if _, ok := kind.(*corev1.Namespace); ok {
		return sources.Handler(func(ev sources.EventType, o, old client.Object) {
			if ev != sources.Updated || o.(*corev1.Namespace).Status.Phase != old.(*corev1.Namespace).Status.Phase {
				for _, mi := range r.sources.Live() {
					r.enqueueExports(ctx, mi.Cluster, o.GetName())
				}
			}
			// Its labels say which Namespaces' exports may join its Services.
			if ev != sources.Updated || !maps.Equal(o.GetLabels(), old.GetLabels()) {
				for _, k := range r.joins.TargetsIn(o.GetName()) {
					r.queue.Add(k)
				}
			}
		})
	}
	return sources.Handler(func(ev sources.EventType, o, _ client.Object) {
		if ours(o) && ev == sources.Deleted {
			r.queue.Add(client.ObjectKeyFromObject(o))
		}
	})
}

// ownHandler repairs at once what the leader wrote into the led member (a
// derived Service, an imported slice) and someone else deleted; other
// changes are repaired at resync.
func (r *run) ownHandler() toolscache.ResourceEventHandler {
	return sources.Handler(func(ev sources.EventType, o, _ client.Object) {
		if ev == sources.Deleted {
			r.queue.Add(importKey(o))
		}
	})
}

// statusOnly tells whether an update changed only an export's status (the
// conditions the member controller and the leaders write), which the merge
// does not read.
func statusOnly(old, o client.Object) bool {
	return old.GetGeneration() == o.GetGeneration() && maps.Equal(old.GetAnnotations(), o.GetAnnotations()) &&
		old.GetDeletionTimestamp().Equal(o.GetDeletionTimestamp())
}

// exported tells whether the member has an export of the name.
func (r *run) exported(ctx context.Context, cl cluster.Cluster, k types.NamespacedName) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return cl.GetCache().Get(ctx, k, &mcsv1beta1.ServiceExport{}) == nil
}

// enqueueExports enqueues every export of a member (in namespace ns, or all).
func (r *run) enqueueExports(ctx context.Context, cl cluster.Cluster, ns string) {
	list := &mcsv1beta1.ServiceExportList{}
	if err := cl.GetCache().List(ctx, list, client.InNamespace(ns)); err != nil {
		return
	}
	for _, e := range list.Items {
		k := client.ObjectKeyFromObject(&e)
		r.queue.Add(k)
		if target, ok, _ := exportscope.JoinTarget(k, e.Annotations); ok && target != k {
			r.queue.Add(target)
		}
	}
}

// enqueueAll enqueues every name exported by a readable member or imported
// into the led member, and the led member's list of withheld exports.
func (r *run) enqueueAll(ctx context.Context) {
	r.queue.Add(withheldKey)
	for _, mi := range r.sources.Live() {
		r.enqueueExports(ctx, mi.Cluster, "")
	}
	sel := client.MatchingLabels{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation}
	imports := &mcsv1beta1.ServiceImportList{}
	if err := r.m.OwnCache().List(ctx, imports, sel); err == nil {
		importsGauge.WithLabelValues(r.m.ClusterID).Set(float64(len(imports.Items)))
		for i := range imports.Items {
			r.queue.Add(importKey(&imports.Items[i]))
		}
	}
	slices := &discoveryv1.EndpointSliceList{}
	if err := r.m.OwnCache().List(ctx, slices, sel); err == nil {
		for i := range slices.Items {
			r.queue.Add(importKey(&slices.Items[i]))
		}
	}
	svcs := &corev1.ServiceList{}
	if err := r.m.OwnCache().List(ctx, svcs, sel); err == nil {
		for i := range svcs.Items {
			r.queue.Add(importKey(&svcs.Items[i]))
		}
	}
}

// nodeChanged tells whether a node update changes what it offers.
func nodeChanged(old, o client.Object) bool {
	a, okA := old.(*corev1.Node)
	b, okB := o.(*corev1.Node)
	if !okA || !okB {
		return true
	}
	return !equality.Semantic.DeepEqual(a.Status.Addresses, b.Status.Addresses) || nodeReady(a) != nodeReady(b) ||
		a.Spec.Unschedulable != b.Spec.Unschedulable || a.Labels[corev1.LabelTopologyZone] != b.Labels[corev1.LabelTopologyZone] ||
		a.Labels[corev1.LabelTopologyRegion] != b.Labels[corev1.LabelTopologyRegion]
}

// topologyChanged tells whether a node update changed its zone or region.
func topologyChanged(old, o client.Object) bool {
	for _, l := range []string{corev1.LabelTopologyZone, corev1.LabelTopologyRegion} {
		if old.GetLabels()[l] != o.GetLabels()[l] {
			return true
		}
	}
	return false
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
