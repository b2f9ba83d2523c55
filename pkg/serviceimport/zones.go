package serviceimport

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/serviceexport"
)

// importer is the led member as the imported slices of result see it: its
// cluster ID, and its nodes' zones when the import prefers close endpoints.
func (r *run) importer(ctx context.Context, result serviceexport.Result) (serviceexport.Importer, error) {
	imp := serviceexport.Importer{Cluster: r.m.ClusterID}
	if result.TrafficDistribution != serviceexport.PreferClose {
		return imp, nil
	}
	zones, err := r.ledZones(ctx)
	imp.Zones = zones
	return imp, err
}

// ledZones maps the zone of each of the led member's nodes to its region.
func (r *run) ledZones(ctx context.Context) (map[string]string, error) {
	nodes := &corev1.NodeList{}
	if err := r.m.Cluster.GetCache().List(ctx, nodes, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing the nodes of %s: %w", r.m.ClusterID, err)
	}
	zones := map[string]string{}
	for i := range nodes.Items {
		l := nodes.Items[i].Labels
		if z := l[corev1.LabelTopologyZone]; z != "" {
			zones[z] = l[corev1.LabelTopologyRegion]
		}
	}
	return zones, nil
}

// ledZonesChanged is called on node events of the led member: when its
// zones (or their regions) changed, every import is looked at again, since
// the topology hints of PreferClose imports depend on them.
func (r *run) ledZonesChanged(ctx context.Context) {
	zones, err := r.ledZones(ctx)
	if err != nil {
		return
	}
	r.zonesMu.Lock()
	changed := r.zones != nil && !maps.Equal(r.zones, zones)
	r.zones = zones
	r.zonesMu.Unlock()
	if !changed {
		return
	}
	imports := &mcsv1beta1.ServiceImportList{}
	if err := r.m.OwnCache().List(ctx, imports, client.MatchingLabels{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation}); err != nil {
		return
	}
	for i := range imports.Items {
		r.queue.Add(client.ObjectKeyFromObject(&imports.Items[i]))
	}
}
