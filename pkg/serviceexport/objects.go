package serviceexport

import (
	"maps"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// ClusterSetIP is what the member gave the derived Service of a
// ClusterSetIP import.
type ClusterSetIP struct {
	// IPs are the derived Service's spec.clusterIPs; none while it has none.
	IPs []string
	// Refused is why the member's API server refused the derived Service's
	// IP families, when it did (no Service range of a family the exporters serve).
	Refused string
}

// DesiredImport is the ServiceImport of a merged name. cs is the derived
// Service's allocation (ignored for a headless import).
func DesiredImport(ns, name string, r Result, cs ClusterSetIP) *mcsv1beta1.ServiceImport {
	labels := maps.Clone(r.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, ImportLabels(name))
	annotations := maps.Clone(r.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[federationv1alpha1.AnnotationAddressTypes] = addressTypes(r)
	imp := &mcsv1beta1.ServiceImport{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels, Annotations: annotations},
		Spec: mcsv1beta1.ServiceImportSpec{Type: r.Type, Ports: r.Ports, IPFamilies: r.IPFamilies,
			InternalTrafficPolicy: ptr.To(r.InternalTrafficPolicy)},
		Status: mcsv1beta1.ServiceImportStatus{EndpointSliceObjects: mcsv1beta1.EndpointSliceObjectsPresent,
			Conditions: []metav1.Condition{ImportReadyCondition(r, cs)}},
	}
	if r.TrafficDistribution != "" {
		imp.Spec.TrafficDistribution = ptr.To(r.TrafficDistribution)
	}
	if r.Type == mcsv1beta1.ClusterSetIP {
		imp.Annotations[federationv1alpha1.AnnotationDerivedService] = DerivedServiceName(name)
		imp.Spec.IPs = cs.IPs
		imp.Spec.IPFamilies = familiesOfIPs(cs.IPs)
		imp.Spec.SessionAffinity = r.SessionAffinity
		imp.Spec.SessionAffinityConfig = r.SessionAffinityConfig
	}
	for _, c := range r.Clusters() {
		imp.Status.Clusters = append(imp.Status.Clusters, mcsv1beta1.ClusterStatus{Cluster: c})
	}
	return imp
}

func addressTypes(r Result) string {
	parts := make([]string, 0, len(r.Exports))
	for _, e := range r.Exports {
		parts = append(parts, e.Cluster+"="+string(e.Addresses.Type))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// DerivedService is the selector-less Service whose ClusterIP is the
// cluster-set IP of a ClusterSetIP import; the imported EndpointSlices
// carry its name in kubernetes.io/service-name, so the member's service
// proxy routes the IP to them. It asks for the families the exporters
// serve: both (PreferDualStack, in the member's order), or the one; the
// member's default when they serve none yet.
func DerivedService(ns, name string, r Result) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: DerivedServiceName(name), Labels: ImportLabels(name)},
		Spec: corev1.ServiceSpec{
			Type:                  corev1.ServiceTypeClusterIP,
			SessionAffinity:       r.SessionAffinity,
			SessionAffinityConfig: r.SessionAffinityConfig,
			InternalTrafficPolicy: ptr.To(r.InternalTrafficPolicy),
		},
	}
	if r.InternalTrafficPolicy == "" {
		svc.Spec.InternalTrafficPolicy = ptr.To(corev1.ServiceInternalTrafficPolicyCluster)
	}
	if r.TrafficDistribution != "" {
		svc.Spec.TrafficDistribution = ptr.To(r.TrafficDistribution)
	}
	switch len(r.IPFamilies) {
	case 1:
		svc.Spec.IPFamilyPolicy, svc.Spec.IPFamilies = ptr.To(corev1.IPFamilyPolicySingleStack), r.IPFamilies
	case 2:
		svc.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyPreferDualStack)
	}
	for _, p := range r.Ports {
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: p.Name, Protocol: p.Protocol, Port: p.Port,
			TargetPort: intstr.FromInt32(p.Port), AppProtocol: p.AppProtocol})
	}
	return svc
}

// ImportOwner is the owner reference imported EndpointSlices carry to their ServiceImport.
func ImportOwner(imp *mcsv1beta1.ServiceImport) []metav1.OwnerReference {
	return []metav1.OwnerReference{{APIVersion: mcsv1beta1.GroupVersion.String(), Kind: "ServiceImport", Name: imp.Name, UID: imp.UID}}
}
