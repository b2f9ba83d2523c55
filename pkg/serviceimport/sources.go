package serviceimport

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// newTracker follows the members whose exports the run reads: every member,
// the led one included (a Service it exports is imported into it too).
func (r *run) newTracker() *sources.Tracker {
	return sources.New(r.m, sources.Options{
		Kinds: sources.ServiceKinds(), Handler: r.sourceHandler, ReadLed: true,
		UnreachableHoldDown: r.c.UnreachableHoldDown,
		Registry:            r.c.registry, RegistryNamespace: r.c.registryNamespace,
		Gauge: metrics.Sources,
	}, r.log)
}

// hookLed watches the led member's ServiceImports and namespaces, and the
// federation's own Services and slices in it, and waits until they, and
// its own sources, are synced.
func (r *run) hookLed(ctx context.Context) error {
	watches := []sources.Watch{
		// (r.m.Own nil: the led member's cache, a test's.)
		{Kind: &mcsv1beta1.ServiceImport{}, Handler: r.ledHandler(ctx, &mcsv1beta1.ServiceImport{}), Cache: r.m.Own},
		{Kind: &corev1.Namespace{}, Handler: r.ledHandler(ctx, &corev1.Namespace{})},
	}
	if r.m.Own != nil {
		watches = append(watches,
			sources.Watch{Kind: &corev1.Service{}, Handler: r.ownHandler(), Cache: r.m.Own},
			sources.Watch{Kind: &discoveryv1.EndpointSlice{}, Handler: r.ownHandler(), Cache: r.m.Own})
	}
	return r.sources.HookLed(ctx, watches...)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
