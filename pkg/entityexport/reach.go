package entityexport

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/exportscope"
)

// ReachedStatus is exp's status with where it goes written in: the
// Exported condition and status.clusters, decided over the registry's
// members (exporter among them) as the importers' leaders decide
// (package exportscope). An export whose scope cannot be read reaches its
// exporter alone. changed is false when the status already says so.
func ReachedStatus(exp *federationv1alpha1.EntityExport, exporter exportscope.Member, members []exportscope.Member) (status federationv1alpha1.EntityExportStatus, changed bool) {
	scope, err := exportscope.FromSpec(exp.Spec.Scope)
	reach := exportscope.ReachOf(scope, exporter, members)
	status = *exp.Status.DeepCopy()
	clusters := []federationv1alpha1.ClusterStatus{}
	for _, r := range reach {
		if r.Reached {
			clusters = append(clusters, federationv1alpha1.ClusterStatus{Cluster: r.ClusterID})
		}
	}
	if len(clusters) == 0 { // the exporter is always reached, even before the registry lists it
		clusters = append(clusters, federationv1alpha1.ClusterStatus{Cluster: exporter.ClusterID})
	}
	changed = !slices.Equal(status.Clusters, clusters)
	status.Clusters = clusters
	cond := exportscope.Condition(scope, err, reach, exportscope.Unknown(scope, members), exp.Generation)
	if meta.SetStatusCondition(&status.Conditions, cond) {
		changed = true
	}
	return status, changed
}
