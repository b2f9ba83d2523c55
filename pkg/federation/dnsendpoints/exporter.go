package dnsendpoints

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	"antreaplus.io/antreaplus/pkg/externaldns/records"
	"antreaplus.io/antreaplus/pkg/serviceexport"
)

// Source is what one member holds of one exported Service.
type Source struct {
	ClusterID string
	Export    *mcsv1beta1.ServiceExport
	// Service is nil when the member exports a Service it does not have.
	Service *corev1.Service
	// Nodes are all the member's nodes.
	Nodes []corev1.Node
	// Slices are the Service's EndpointSlices (read only for a NodePort
	// Service with externalTrafficPolicy Local).
	Slices []discoveryv1.EndpointSlice
}

// ExporterOf is the member's export as the records see it (records.Exporter).
//
//   - Ready: the export is not marked invalid (its ServiceExportValid
//     condition is not False) and its Service exists.
//   - Kind: a LoadBalancer Service is reached through its load balancer,
//     a NodePort Service through its nodes; anything else, or an export over
//     Pod IPs (serviceexport.IsFlat), is not reachable from outside.
//   - A load balancer's addresses are its ingress IPs and hostnames.
//   - A NodePort's addresses are its nodes' ExternalIPs (never InternalIPs:
//     they are not reachable from outside), each with its node's zone and
//     readiness (Ready and schedulable, not being deleted); with
//     externalTrafficPolicy Local only the nodes with a ready endpoint of
//     the Service answer, so only they count.
//   - Region and Zones are the member's nodes' (serviceexport.Region and
//     Zones), as for the members' own DNS.
//   - Reachable is true: the caller leaves out members the federation
//     withdrew.
func ExporterOf(s Source) records.Exporter {
	e := records.Exporter{ClusterID: s.ClusterID, Region: serviceexport.Region(s.Nodes), Zones: serviceexport.Zones(s.Nodes),
		Kind: records.KindOther, Reachable: true}
	if s.Export != nil {
		e.OptOut = records.OptedOut(s.Export.Annotations)
	}
	svc := s.Service
	if svc == nil || s.Export == nil {
		return e
	}
	e.Ready = !meta.IsStatusConditionFalse(s.Export.Status.Conditions, string(mcsv1beta1.ServiceExportConditionValid))
	for _, p := range svc.Spec.Ports {
		e.Ports = append(e.Ports, records.Port{Name: p.Name, Protocol: string(p.Protocol), Port: p.Port, NodePort: p.NodePort})
	}
	if serviceexport.IsFlat(s.Export.Annotations) {
		return e
	}
	switch svc.Spec.Type {
	case corev1.ServiceTypeLoadBalancer:
		e.Kind = records.KindLoadBalancer
		for _, in := range svc.Status.LoadBalancer.Ingress {
			if in.IP != "" {
				e.LoadBalancerIPs = append(e.LoadBalancerIPs, in.IP)
			}
			if in.Hostname != "" {
				e.LoadBalancerHostnames = append(e.LoadBalancerHostnames, in.Hostname)
			}
		}
	case corev1.ServiceTypeNodePort:
		e.Kind = records.KindNodePort
		e.NodeAddresses = nodeAddresses(s.Nodes, serviceexport.LocalNodes(svc, s.Slices))
	}
	return e
}

// nodeAddresses are the ExternalIPs of nodes (of those in only, when not
// nil), sorted: the nodes come in the order a cache lists them, which
// varies, and the exporters are stored (AnnotationExporters) and compared
// as they are; unsorted, a new leader listing the same nodes in another
// order rewrote the same records.
func nodeAddresses(nodes []corev1.Node, only map[string]bool) []records.NodeAddress {
	out := unsortedNodeAddresses(nodes, only)
	slices.SortFunc(out, func(a, b records.NodeAddress) int {
		return cmp.Or(strings.Compare(a.IP, b.IP), strings.Compare(a.Zone, b.Zone))
	})
	return out
}

func unsortedNodeAddresses(nodes []corev1.Node, only map[string]bool) []records.NodeAddress {
	var out []records.NodeAddress
	for i := range nodes {
		n := &nodes[i]
		if only != nil && !only[n.Name] {
			continue
		}
		ready := serviceexport.NodeReady(n) && !n.Spec.Unschedulable && n.DeletionTimestamp.IsZero()
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeExternalIP && a.Address != "" {
				out = append(out, records.NodeAddress{IP: a.Address, Zone: n.Labels[corev1.LabelTopologyZone], Ready: ready})
			}
		}
	}
	return out
}

// nodeDigest is what of a node the records depend on: a node event that
// does not change it changes no record.
func nodeDigest(n *corev1.Node) string {
	if n == nil {
		return ""
	}
	d := n.Labels[corev1.LabelTopologyRegion] + "|" + n.Labels[corev1.LabelTopologyZone] + "|"
	if serviceexport.NodeReady(n) && !n.Spec.Unschedulable && n.DeletionTimestamp.IsZero() {
		d += "ready|"
	}
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeExternalIP {
			d += a.Address + ","
		}
	}
	return d
}
