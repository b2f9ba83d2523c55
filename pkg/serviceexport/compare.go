package serviceexport

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// The Matches functions tell whether an object read from a cluster already
// is what the desired one asks for, so that a writer writes only on change.
// They compare labels and annotations exactly (but the leader term, which
// every write stamps), and the fields the API server defaults only when the
// desired object sets them.

// ServiceMatches compares a derived Service.
func ServiceMatches(have, want *corev1.Service) bool {
	if !metaMatches(have, want) || have.Spec.SessionAffinity != want.Spec.SessionAffinity || len(have.Spec.Ports) != len(want.Spec.Ports) || len(have.Spec.Selector) != 0 {
		return false
	}
	if want.Spec.SessionAffinityConfig != nil && !equality.Semantic.DeepEqual(have.Spec.SessionAffinityConfig, want.Spec.SessionAffinityConfig) {
		return false
	}
	if deref(have.Spec.InternalTrafficPolicy) != deref(want.Spec.InternalTrafficPolicy) || deref(have.Spec.TrafficDistribution) != deref(want.Spec.TrafficDistribution) {
		return false
	}
	if !familiesMatch(have, want) {
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

// familiesMatch compares the IP family policy and families the desired
// Service sets (the API server fills them in when it does not).
func familiesMatch(have, want *corev1.Service) bool {
	if want.Spec.IPFamilyPolicy != nil && deref(have.Spec.IPFamilyPolicy) != *want.Spec.IPFamilyPolicy {
		return false
	}
	return len(want.Spec.IPFamilies) == 0 || slices.Equal(have.Spec.IPFamilies, want.Spec.IPFamilies)
}

// UpdatedService is have changed into want, and whether it must be
// recreated instead: the primary IP family of a Service cannot change.
func UpdatedService(have, want *corev1.Service) (*corev1.Service, bool) {
	if len(want.Spec.IPFamilies) > 0 && len(have.Spec.IPFamilies) > 0 && have.Spec.IPFamilies[0] != want.Spec.IPFamilies[0] {
		return nil, true
	}
	upd := have.DeepCopy()
	upd.Labels, upd.Annotations = want.Labels, withTerm(want.Annotations, have.Annotations)
	upd.Spec.Selector, upd.Spec.Ports = nil, want.Spec.Ports
	upd.Spec.SessionAffinity, upd.Spec.SessionAffinityConfig = want.Spec.SessionAffinity, want.Spec.SessionAffinityConfig
	upd.Spec.InternalTrafficPolicy, upd.Spec.TrafficDistribution = want.Spec.InternalTrafficPolicy, want.Spec.TrafficDistribution
	if want.Spec.IPFamilyPolicy != nil {
		upd.Spec.IPFamilyPolicy = want.Spec.IPFamilyPolicy
	}
	if len(want.Spec.IPFamilies) > 0 && !slices.Equal(upd.Spec.IPFamilies, want.Spec.IPFamilies) {
		// Down to one family: the secondary family and its IP go.
		upd.Spec.IPFamilies = want.Spec.IPFamilies
		upd.Spec.ClusterIPs = upd.Spec.ClusterIPs[:min(1, len(upd.Spec.ClusterIPs))]
	}
	return upd, false
}

// ImportSpecMatches compares a ServiceImport's metadata and spec.
func ImportSpecMatches(have, want *mcsv1beta1.ServiceImport) bool {
	return metaMatches(have, want) && equality.Semantic.DeepEqual(have.Spec, want.Spec)
}

// ImportStatusMatches compares a ServiceImport's status: the exporting
// clusters, endpointSliceObjects and the desired conditions (not their
// transition times).
func ImportStatusMatches(have, want *mcsv1beta1.ServiceImport) bool {
	if !equality.Semantic.DeepEqual(have.Status.Clusters, want.Status.Clusters) || have.Status.EndpointSliceObjects != want.Status.EndpointSliceObjects {
		return false
	}
	for _, w := range want.Status.Conditions {
		h := meta.FindStatusCondition(have.Status.Conditions, w.Type)
		if h == nil || h.Status != w.Status || h.Reason != w.Reason || h.Message != w.Message || h.ObservedGeneration != w.ObservedGeneration {
			return false
		}
	}
	return true
}

// SliceMatches compares an imported EndpointSlice.
func SliceMatches(have, want *discoveryv1.EndpointSlice) bool {
	return metaMatches(have, want) && have.AddressType == want.AddressType &&
		equality.Semantic.DeepEqual(have.OwnerReferences, want.OwnerReferences) &&
		equality.Semantic.DeepEqual(have.Ports, want.Ports) && equality.Semantic.DeepEqual(have.Endpoints, want.Endpoints)
}

func metaMatches(have, want metav1.Object) bool {
	return maps.Equal(have.GetLabels(), want.GetLabels()) && maps.Equal(withoutTerm(have.GetAnnotations()), withoutTerm(want.GetAnnotations()))
}

func withoutTerm(a map[string]string) map[string]string {
	if _, ok := a[federationv1alpha1.AnnotationLeaderTerm]; !ok {
		return a
	}
	out := maps.Clone(a)
	delete(out, federationv1alpha1.AnnotationLeaderTerm)
	return out
}

// withTerm is want with the leader term of have, if any: what an update
// writes (the write stamps its own term over it).
func withTerm(want, have map[string]string) map[string]string {
	out := maps.Clone(want)
	if out == nil {
		out = map[string]string{}
	}
	if t, ok := have[federationv1alpha1.AnnotationLeaderTerm]; ok {
		out[federationv1alpha1.AnnotationLeaderTerm] = t
	}
	return out
}

// UpdatedAnnotations are the annotations an update of an object whose
// annotations are have writes to make them want's.
func UpdatedAnnotations(have, want map[string]string) map[string]string { return withTerm(want, have) }

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
