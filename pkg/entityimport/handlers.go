package entityimport

import (
	"context"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// ours tells whether a leader wrote the object.
func ours(o client.Object) bool {
	return o.GetLabels()[federationv1alpha1.LabelManagedBy] == federationv1alpha1.ManagedByFederation
}

// importedKey is the key a RemoteEntity a leader wrote belongs to.
func importedKey(o client.Object) key {
	return key{Namespace: o.GetNamespace(), Source: o.GetLabels()[federationv1alpha1.LabelSourceCluster]}
}

// sourceHandler maps the events of one member's informer to keys: any
// change of an export's spec, and changes of entities in Namespaces the
// member exports from that could change their RemoteEntities.
func (r *run) sourceHandler(ctx context.Context, id string, cl cluster.Cluster, kind client.Object) toolscache.ResourceEventHandler {
	if _, ok := kind.(*federationv1alpha1.EntityExport); ok {
		return sources.Handler(func(ev sources.EventType, o, old client.Object) {
			if ev != sources.Updated || !statusOnly(old, o) {
				r.queue.Add(key{Namespace: o.GetNamespace(), Source: id})
				r.queue.AddAfter(withheldKey, withheldDelay)
			}
		})
	}
	return sources.Handler(func(ev sources.EventType, o, old client.Object) {
		if ev == sources.Updated && !entityChanged(old, o) {
			return
		}
		if r.exportsFrom(ctx, cl, o.GetNamespace()) {
			r.queue.Add(key{Namespace: o.GetNamespace(), Source: id})
		}
	})
}

// remoteEntityHandler repairs at once a RemoteEntity someone else deleted;
// other changes are repaired at resync.
func (r *run) remoteEntityHandler() toolscache.ResourceEventHandler {
	return sources.Handler(func(ev sources.EventType, o, _ client.Object) {
		if ours(o) && ev == sources.Deleted {
			r.queue.Add(importedKey(o))
		}
	})
}

// namespaceHandler imports into a Namespace as soon as it is created.
func (r *run) namespaceHandler(ctx context.Context) toolscache.ResourceEventHandler {
	return sources.Handler(func(ev sources.EventType, o, old client.Object) {
		if ev == sources.Deleted || (ev == sources.Updated && o.(*corev1.Namespace).Status.Phase == old.(*corev1.Namespace).Status.Phase) {
			return
		}
		for _, mi := range r.sources.Live() {
			if r.exportsFrom(ctx, mi.Cluster, o.GetName()) {
				r.queue.Add(key{Namespace: o.GetName(), Source: mi.ClusterID})
			}
		}
	})
}

// statusOnly tells whether an update changed only an export's status,
// which the import does not read.
func statusOnly(old, o client.Object) bool {
	return old.GetGeneration() == o.GetGeneration() && old.GetDeletionTimestamp().Equal(o.GetDeletionTimestamp())
}

// entityChanged tells whether an entity update changes what is imported of
// it: its labels, endpoints, ports, or classified addresses (a NAT
// gateway's new address changes only the annotation).
func entityChanged(old, o client.Object) bool {
	a, okA := old.(*antreav1alpha2.ExternalEntity)
	b, okB := o.(*antreav1alpha2.ExternalEntity)
	if !okA || !okB {
		return true
	}
	return !maps.Equal(a.Labels, b.Labels) || !a.DeletionTimestamp.Equal(b.DeletionTimestamp) ||
		a.Annotations[federationv1alpha1.AnnotationAddresses] != b.Annotations[federationv1alpha1.AnnotationAddresses] ||
		!equality.Semantic.DeepEqual(a.Spec.Endpoints, b.Spec.Endpoints) || !equality.Semantic.DeepEqual(a.Spec.Ports, b.Spec.Ports)
}

// exportsFrom tells whether a member has an export in namespace ns.
func (r *run) exportsFrom(ctx context.Context, cl cluster.Cluster, ns string) bool {
	list := &federationv1alpha1.EntityExportList{}
	return cl.GetCache().List(ctx, list, client.InNamespace(ns)) == nil && len(list.Items) > 0
}

// enqueueAll enqueues every Namespace a live member exports from, every
// (Namespace, source) the led member holds RemoteEntities of, every
// Namespace the led member exports from (for its exports' status), and the
// led member's list of withheld exports.
func (r *run) enqueueAll(ctx context.Context) {
	r.queue.Add(withheldKey)
	own := &federationv1alpha1.EntityExportList{}
	if err := r.m.Cluster.GetCache().List(ctx, own); err == nil {
		for _, e := range own.Items {
			r.queue.Add(key{Namespace: e.Namespace, Source: r.m.ClusterID})
		}
	}
	for _, mi := range r.sources.Live() {
		list := &federationv1alpha1.EntityExportList{}
		if err := mi.Cluster.GetCache().List(ctx, list); err != nil {
			continue
		}
		for _, e := range list.Items {
			r.queue.Add(key{Namespace: e.Namespace, Source: mi.ClusterID})
		}
	}
	imported := &federationv1alpha1.RemoteEntityList{}
	if err := r.m.OwnCache().List(ctx, imported, client.MatchingLabels{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation}); err != nil {
		return
	}
	remoteEntitiesGauge.WithLabelValues(r.m.ClusterID).Set(float64(len(imported.Items)))
	for i := range imported.Items {
		r.queue.Add(importedKey(&imported.Items[i]))
	}
}
