package entityimport

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// sourceKinds are what the leader reads of every other member.
func sourceKinds() []client.Object {
	return []client.Object{&federationv1alpha1.EntityExport{}, &antreav1alpha2.ExternalEntity{}}
}

// newTracker follows the members whose exports the run reads: every member
// but the led one (nothing of a member is imported into itself).
func (r *run) newTracker() *sources.Tracker {
	return sources.New(r.m, sources.Options{
		Kinds: sourceKinds(), Handler: r.sourceHandler,
		UnreachableHoldDown: r.c.UnreachableHoldDown,
		Registry:            r.c.registry, RegistryNamespace: r.c.registryNamespace,
		Gauge: metrics.Sources,
	}, r.log)
}

// hookLed watches the led member's RemoteEntities (in the cache of the
// federation's own objects, which runs while this leader leads),
// Namespaces and own EntityExports (for their status) and waits until they
// are synced.
func (r *run) hookLed(ctx context.Context) error {
	return r.sources.HookLed(ctx,
		// (r.m.Own nil: the led member's cache, a test's.)
		sources.Watch{Kind: &federationv1alpha1.RemoteEntity{}, Handler: r.remoteEntityHandler(), Cache: r.m.Own},
		sources.Watch{Kind: &corev1.Namespace{}, Handler: r.namespaceHandler(ctx)},
		sources.Watch{Kind: &federationv1alpha1.EntityExport{}, Handler: r.ownExportHandler()})
}
