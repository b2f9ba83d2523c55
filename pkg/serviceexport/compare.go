package serviceexport

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

// The Matches functions tell whether an object read from a cluster already
// is what the desired one asks for, so that a writer writes only on change.
// They compare what the desired object sets: labels exactly, the desired
// annotations only (others, such as the leader term, are ignored), and the
// fields the API server defaults only when the desired object sets them.

// ServiceMatches compares a derived Service.
func ServiceMatches(have, want *corev1.Service) bool {
	if !metaMatches(have, want) || have.Spec.SessionAffinity != want.Spec.SessionAffinity || len(have.Spec.Ports) != len(want.Spec.Ports) || len(have.Spec.Selector) != 0 {
		return false
	}
	if want.Spec.SessionAffinityConfig != nil && !equality.Semantic.DeepEqual(have.Spec.SessionAffinityConfig, want.Spec.SessionAffinityConfig) {
		return false
	}
	for i, w := range want.Spec.Ports {
		h := have.Spec.Ports[i]
		if h.Name != w.Name || h.Protocol != w.Protocol || h.Port != w.Port || h.TargetPort != w.TargetPort || !equality.Semantic.DeepEqual(h.AppProtocol, w.AppProtocol) {
			return false
		}
	}
	return true
}

// ImportSpecMatches compares a ServiceImport's metadata and spec.
func ImportSpecMatches(have, want *mcsv1beta1.ServiceImport) bool {
	return metaMatches(have, want) && equality.Semantic.DeepEqual(have.Spec, want.Spec)
}

// ImportStatusMatches compares the exporting clusters of a ServiceImport.
func ImportStatusMatches(have, want *mcsv1beta1.ServiceImport) bool {
	return equality.Semantic.DeepEqual(have.Status.Clusters, want.Status.Clusters)
}

// SliceMatches compares an imported EndpointSlice.
func SliceMatches(have, want *discoveryv1.EndpointSlice) bool {
	return metaMatches(have, want) && have.AddressType == want.AddressType &&
		equality.Semantic.DeepEqual(have.OwnerReferences, want.OwnerReferences) &&
		equality.Semantic.DeepEqual(have.Ports, want.Ports) && equality.Semantic.DeepEqual(have.Endpoints, want.Endpoints)
}

func metaMatches(have, want metav1.Object) bool {
	if !maps.Equal(have.GetLabels(), want.GetLabels()) {
		return false
	}
	for k, v := range want.GetAnnotations() {
		if got, ok := have.GetAnnotations()[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// SetConditions sets each condition on conds, keeping the transition time
// of a condition whose status did not change, and tells whether anything changed.
func SetConditions(conds *[]metav1.Condition, set ...metav1.Condition) bool {
	changed := false
	for _, c := range set {
		if meta.SetStatusCondition(conds, c) {
			changed = true
		}
	}
	return changed
}
