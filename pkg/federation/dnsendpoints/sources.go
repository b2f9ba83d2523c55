package dnsendpoints

import (
	"context"
	"maps"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/exportscope"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// newTracker follows every member, the led one included (its exports are
// published too).
func (r *run) newTracker() *sources.Tracker {
	return sources.New(r.m, sources.Options{
		Kinds: sources.ServiceKinds(), Handler: r.sourceHandler, ReadLed: true,
		UnreachableHoldDown: r.c.UnreachableHoldDown,
		Registry:            r.c.registry, RegistryNamespace: r.c.registryNamespace,
	}, r.log)
}

// hookLed watches the led member's ClusterMembership (its externalDNS
// domain and TTL) and Namespaces (their labels accept joining exports), and
// waits until they and the led member's sources are synced.
func (r *run) hookLed(ctx context.Context) error {
	namespaces := sources.Watch{Kind: &corev1.Namespace{}, Handler: sources.Handler(func(ev sources.EventType, o, old client.Object) {
		if ev != sources.Updated || !maps.Equal(o.GetLabels(), old.GetLabels()) {
			for _, k := range r.joins.TargetsIn(o.GetName()) {
				r.queue.Add(k)
			}
		}
	})}
	return r.sources.HookLed(ctx, namespaces, sources.Watch{Kind: &federationv1alpha1.ClusterMembership{},
		Handler: sources.Handler(func(ev sources.EventType, o, old client.Object) {
			now, _ := o.(*federationv1alpha1.ClusterMembership)
			was, _ := old.(*federationv1alpha1.ClusterMembership)
			if ev == sources.Updated && now != nil && was != nil &&
				now.Spec.FederationID == was.Spec.FederationID && reflect.DeepEqual(now.Spec.ExternalDNS, was.Spec.ExternalDNS) {
				return
			}
			r.enqueueKnown(ctx)
		})})
}

// sourceHandler enqueues the Service an export, Service or EndpointSlice
// event of member id is about, and every Service id exports when one of its
// nodes changed what the records depend on (nodeDigest).
func (r *run) sourceHandler(ctx context.Context, id string, cl cluster.Cluster, kind client.Object) toolscache.ResourceEventHandler {
	_, isNode := kind.(*corev1.Node)
	if _, ok := kind.(*mcsv1beta1.ServiceExport); ok {
		return sources.Handler(func(ev sources.EventType, o, _ client.Object) {
			// Its own name, and the federated Services it joins and joined.
			for _, k := range r.joins.Set(id, client.ObjectKeyFromObject(o), o.GetAnnotations(), ev == sources.Deleted) {
				r.queue.Add(k)
			}
		})
	}
	return sources.Handler(func(ev sources.EventType, o, _ client.Object) {
		if !isNode {
			if k, ok := keyOfSource(o); ok {
				r.queue.Add(k)
				if joined, ok := r.joins.Target(id, k); ok {
					r.queue.Add(joined)
				}
			}
			return
		}
		n, _ := o.(*corev1.Node)
		if n == nil {
			return
		}
		digest := nodeDigest(n)
		if ev == sources.Deleted {
			digest = ""
		}
		r.mu.Lock()
		if r.nodes[id] == nil {
			r.nodes[id] = map[string]string{}
		}
		changed := r.nodes[id][n.Name] != digest
		if digest == "" {
			delete(r.nodes[id], n.Name)
		} else {
			r.nodes[id][n.Name] = digest
		}
		r.mu.Unlock()
		if changed {
			r.enqueueExports(ctx, cl)
		}
	})
}

// keyOfSource is the Service an export, Service or EndpointSlice is about.
func keyOfSource(o client.Object) (key, bool) {
	switch o := o.(type) {
	case *mcsv1beta1.ServiceExport, *corev1.Service:
		return key{Namespace: o.GetNamespace(), Name: o.GetName()}, true
	case *discoveryv1.EndpointSlice:
		if svc := o.Labels[discoveryv1.LabelServiceName]; svc != "" {
			return key{Namespace: o.Namespace, Name: svc}, true
		}
	}
	return key{}, false
}

// enqueueExports enqueues every Service a member's cache holds an export of.
func (r *run) enqueueExports(ctx context.Context, cl cluster.Cluster) {
	list := &mcsv1beta1.ServiceExportList{}
	if err := cl.GetCache().List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		return
	}
	for i := range list.Items {
		k := client.ObjectKeyFromObject(&list.Items[i])
		r.queue.Add(k)
		if joined, ok, _ := exportscope.JoinTarget(k, list.Items[i].Annotations); ok && joined != k {
			r.queue.Add(joined)
		}
	}
}

// enqueueKnown enqueues every Service exported by a readable member and
// every Service a DNSEndpoint is stored for.
func (r *run) enqueueKnown(ctx context.Context) {
	for _, mi := range r.m.Federation.Members() {
		if mi.Cluster != nil && r.sources.State(mi) == sources.Live {
			r.enqueueExports(ctx, mi.Cluster)
		}
	}
	r.mu.Lock()
	keys := make([]key, 0, len(r.stored))
	for k := range r.stored {
		keys = append(keys, k)
	}
	r.mu.Unlock()
	for _, k := range keys {
		r.queue.Add(k)
	}
}

// enqueueAll lists the led member's DNSEndpoints again (what was written,
// by anyone) and enqueues every known Service.
func (r *run) enqueueAll(ctx context.Context) {
	if err := r.list(ctx); err != nil {
		r.log.V(1).Info("Listing the DNSEndpoints failed", "err", err)
	}
	r.enqueueKnown(ctx)
}
