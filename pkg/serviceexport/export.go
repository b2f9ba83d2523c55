package serviceexport

import (
	"slices"
	"sort"

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
	// InternalTrafficPolicy is the Service's (Cluster when unset).
	InternalTrafficPolicy corev1.ServiceInternalTrafficPolicy
	// TrafficDistribution is the Service's ("" when unset).
	TrafficDistribution string
	// IPFamilies are the families the export serves, IPv4 first: those of
	// the addresses it contributes, or, while it contributes none, those of
	// its Service's spec.ipFamilies (what it will contribute).
	IPFamilies []corev1.IPFamily
	// ExportedLabels and ExportedAnnotations are the ServiceExport's
	// spec.exportedLabels and spec.exportedAnnotations, without the keys
	// the federation reserves or that are not valid (see ExportedMetadata).
	ExportedLabels      map[string]string
	ExportedAnnotations map[string]string
	// Region is the exporting cluster's region: the most common
	// topology.kubernetes.io/region of its nodes ("" when none has one).
	Region string
	// Zones are the distinct topology.kubernetes.io/zone values of the
	// exporting cluster's nodes, sorted: the zones an address without a
	// zone of its own (a load balancer's) serves.
	Zones []string
	// Network is the network the export's private addresses belong to, as
	// its ServiceExport's network.antreaplus.io/name annotation names it
	// (a flat-network export of Pods in a VPC, for example); "" is the
	// exporting cluster's own network (docs/networks.md).
	Network   string
	Addresses Addresses
}

// FromCluster reads one cluster's export of a name: the ServiceExport, its
// Service (nil when missing), the Service's EndpointSlices and the cluster's
// nodes. The Export is meaningful only when the Validity is valid.
func FromCluster(cluster string, export *mcsv1beta1.ServiceExport, svc *corev1.Service, slices []discoveryv1.EndpointSlice, nodes []corev1.Node) (Export, Validity) {
	v := ValidateExport(export, svc)
	if !v.Valid {
		return Export{}, v
	}
	labels, annotations, _ := ExportedMetadata(export)
	e := Export{
		Cluster:               cluster,
		Created:               export.CreationTimestamp,
		ServiceType:           svc.Spec.Type,
		Headless:              svc.Spec.ClusterIP == corev1.ClusterIPNone,
		SessionAffinity:       svc.Spec.SessionAffinity,
		SessionAffinityConfig: svc.Spec.SessionAffinityConfig,
		InternalTrafficPolicy: corev1.ServiceInternalTrafficPolicyCluster,
		TrafficDistribution:   deref(svc.Spec.TrafficDistribution),
		ExportedLabels:        labels,
		ExportedAnnotations:   annotations,
		Region:                Region(nodes),
		Zones:                 Zones(nodes),
		Network:               ExportNetwork(export.Annotations),
		Addresses:             ChooseAddresses(svc, IsFlat(export.Annotations), slices, nodes),
	}
	if e.ServiceType == "" {
		e.ServiceType = corev1.ServiceTypeClusterIP
	}
	if e.SessionAffinity == "" {
		e.SessionAffinity = corev1.ServiceAffinityNone
	}
	if p := svc.Spec.InternalTrafficPolicy; p != nil && *p != "" {
		e.InternalTrafficPolicy = *p
	}
	e.IPFamilies = e.Addresses.Families()
	if len(e.IPFamilies) == 0 {
		e.IPFamilies = sortFamilies(svc.Spec.IPFamilies)
	}
	for _, p := range svc.Spec.Ports {
		e.Ports = append(e.Ports, mcsv1beta1.ServicePort{Name: p.Name, Protocol: protocol(p.Protocol), AppProtocol: p.AppProtocol, Port: p.Port})
	}
	return e, v
}

// NeedsNodes tells whether the addresses of svc depend on the cluster's
// nodes, so callers that need only the addresses read the nodes only then
// (the Export's Region always needs them).
func NeedsNodes(export *mcsv1beta1.ServiceExport, svc *corev1.Service) bool {
	return svc != nil && !IsFlat(export.Annotations) && hasNodePorts(svc)
}

// Region is the most common topology.kubernetes.io/region of nodes (the
// lowest name on a tie), "" when no node has one.
func Region(nodes []corev1.Node) string {
	count := map[string]int{}
	for i := range nodes {
		if r := nodes[i].Labels[corev1.LabelTopologyRegion]; r != "" {
			count[r]++
		}
	}
	regions := make([]string, 0, len(count))
	for r := range count {
		regions = append(regions, r)
	}
	sort.Slice(regions, func(i, j int) bool {
		if count[regions[i]] != count[regions[j]] {
			return count[regions[i]] > count[regions[j]]
		}
		return regions[i] < regions[j]
	})
	if len(regions) == 0 {
		return ""
	}
	return regions[0]
}

// Zones are the distinct topology.kubernetes.io/zone values of nodes,
// sorted; nil when no node has one.
func Zones(nodes []corev1.Node) []string {
	var zones []string
	for i := range nodes {
		if z := nodes[i].Labels[corev1.LabelTopologyZone]; z != "" && !slices.Contains(zones, z) {
			zones = append(zones, z)
		}
	}
	slices.Sort(zones)
	return zones
}

func protocol(p corev1.Protocol) corev1.Protocol {
	if p == "" {
		return corev1.ProtocolTCP
	}
	return p
}
