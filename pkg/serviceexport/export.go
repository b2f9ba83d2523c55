package serviceexport

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

// Export is one cluster's valid export of a namespaced name: the properties
// of its Service that the merge looks at, and the addresses it contributes.
type Export struct {
	Cluster string
	// Created is the ServiceExport's creation time: the oldest export wins conflicts.
	Created metav1.Time
	// ServiceType is the exported Service's type (shown to operators; types may be mixed).
	ServiceType corev1.ServiceType
	Headless    bool
	Ports       []mcsv1beta1.ServicePort
	// SessionAffinity and its config, as on the Service.
	SessionAffinity       corev1.ServiceAffinity
	SessionAffinityConfig *corev1.SessionAffinityConfig
	Addresses             Addresses
}

// FromCluster reads one cluster's export of a name: the ServiceExport, its
// Service (nil when missing), the Service's EndpointSlices and the cluster's
// nodes. The Export is meaningful only when the Validity is valid.
func FromCluster(cluster string, export *mcsv1beta1.ServiceExport, svc *corev1.Service, slices []discoveryv1.EndpointSlice, nodes []corev1.Node) (Export, Validity) {
	v := Validate(svc)
	if !v.Valid {
		return Export{}, v
	}
	e := Export{
		Cluster:               cluster,
		Created:               export.CreationTimestamp,
		ServiceType:           svc.Spec.Type,
		Headless:              svc.Spec.ClusterIP == corev1.ClusterIPNone,
		SessionAffinity:       svc.Spec.SessionAffinity,
		SessionAffinityConfig: svc.Spec.SessionAffinityConfig,
		Addresses:             ChooseAddresses(svc, IsFlat(export.Annotations), slices, nodes),
	}
	if e.ServiceType == "" {
		e.ServiceType = corev1.ServiceTypeClusterIP
	}
	if e.SessionAffinity == "" {
		e.SessionAffinity = corev1.ServiceAffinityNone
	}
	for _, p := range svc.Spec.Ports {
		e.Ports = append(e.Ports, mcsv1beta1.ServicePort{Name: p.Name, Protocol: protocol(p.Protocol), AppProtocol: p.AppProtocol, Port: p.Port})
	}
	return e, v
}

// NeedsNodes tells whether the addresses of svc depend on the cluster's
// nodes, so callers read the nodes only then.
func NeedsNodes(export *mcsv1beta1.ServiceExport, svc *corev1.Service) bool {
	return svc != nil && !IsFlat(export.Annotations) && hasNodePorts(svc)
}

func protocol(p corev1.Protocol) corev1.Protocol {
	if p == "" {
		return corev1.ProtocolTCP
	}
	return p
}
