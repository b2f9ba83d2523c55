package serviceexport

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// AddressType is the kind of addresses an exporting cluster contributes.
type AddressType string

const (
	// AddressLoadBalancer: the Service's load balancer ingress IPs, on the Service ports.
	AddressLoadBalancer AddressType = "LoadBalancer"
	// AddressNodePort: the nodes' addresses, on the node ports.
	AddressNodePort AddressType = "NodePort"
	// AddressPodIP: the Pod IPs of the ready endpoints, on their target ports (flat network).
	AddressPodIP AddressType = "PodIP"
	// AddressNone: nothing reachable from outside the cluster.
	AddressNone AddressType = "None"
)

// Endpoint is one address an exporting cluster contributes.
type Endpoint struct {
	Address  string `json:"address"`
	Ready    bool   `json:"ready"`
	Hostname string `json:"hostname,omitempty"`
	// Zone is the endpoint's topology.kubernetes.io/zone: its Pod's (from
	// the source slice) or its node's; "" for a load balancer.
	Zone string `json:"zone,omitempty"`
	// NodeName is the node of a Pod IP endpoint ("" for other kinds): it is
	// written on the imported endpoint only in the member that exports it,
	// where an internalTrafficPolicy of Local can use it.
	NodeName string `json:"nodeName,omitempty"`
}

// Addresses is what one exporting cluster contributes to the federated Service.
type Addresses struct {
	Type AddressType
	// Endpoints are sorted by address, without duplicates.
	Endpoints []Endpoint
	// Ports maps each Service port name to the port the endpoints serve it on.
	Ports map[string]int32
	// Note explains the choice, or what is missing, for the Ready condition.
	Note string
}

// ChooseAddresses picks the addresses of svc reachable from outside its
// cluster (see the package documentation). slices are the Service's own
// EndpointSlices and nodes the cluster's nodes. Addresses of both families
// are used: IPv4 and IPv6 Pod IPs, node addresses and ingress IPs.
func ChooseAddresses(svc *corev1.Service, flat bool, slices []discoveryv1.EndpointSlice, nodes []corev1.Node) Addresses {
	headless := svc.Spec.ClusterIP == corev1.ClusterIPNone
	nodePorts := hasNodePorts(svc)
	switch {
	case flat:
		a := podAddresses(slices)
		a.Note = fmt.Sprintf("exported over the flat network (%s=true): %s", federationv1alpha1.AnnotationFlatNetwork, describe(a))
		return a
	case svc.Spec.Type == corev1.ServiceTypeLoadBalancer && len(ingressIPs(svc)) > 0:
		a := Addresses{Type: AddressLoadBalancer, Ports: servicePorts(svc, func(p corev1.ServicePort) int32 { return p.Port })}
		for _, ip := range ingressIPs(svc) {
			a.Endpoints = append(a.Endpoints, Endpoint{Address: ip, Ready: true})
		}
		a.Endpoints = dedupe(a.Endpoints)
		a.Note = "exported as LoadBalancer: " + describe(a)
		return a
	case nodePorts:
		a := Addresses{Type: AddressNodePort, Ports: servicePorts(svc, func(p corev1.ServicePort) int32 { return p.NodePort })}
		a.Endpoints = nodeAddresses(nodes, LocalNodes(svc, slices))
		a.Note = "exported as NodePort: " + describe(a)
		if svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
			a.Note = "the load balancer has no ingress IP yet, exported on its node ports meanwhile: " + describe(a)
		}
		return a
	case svc.Spec.Type == corev1.ServiceTypeLoadBalancer:
		return Addresses{Type: AddressLoadBalancer, Note: "waiting for the load balancer's ingress IP (no node ports stand in: allocateLoadBalancerNodePorts is false)"}
	case headless:
		return Addresses{Type: AddressNone, Note: fmt.Sprintf("a headless Service has only Pod addresses, reachable from other members only over a flat network: "+
			"annotate the ServiceExport %s=true if its Pods are routable from every member, or export a NodePort or LoadBalancer Service", federationv1alpha1.AnnotationFlatNetwork)}
	default:
		return Addresses{Type: AddressNone, Note: fmt.Sprintf("a ClusterIP Service is not reachable from outside its cluster: make it a NodePort or LoadBalancer Service, "+
			"or annotate the ServiceExport %s=true if its Pods are routable from every member", federationv1alpha1.AnnotationFlatNetwork)}
	}
}

// ExportNetwork is the network an export's annotations name for its
// private addresses; "" (the exporting cluster's) when they name none or a
// name that is not a DNS subdomain of at most 63 characters.
func ExportNetwork(annotations map[string]string) string {
	n := annotations[federationv1alpha1.AnnotationNetwork]
	if len(n) > 63 || len(validation.IsDNS1123Subdomain(n)) > 0 {
		return ""
	}
	return n
}

// IsFlat tells whether annotations declare a flat network.
func IsFlat(annotations map[string]string) bool {
	return strings.EqualFold(annotations[federationv1alpha1.AnnotationFlatNetwork], "true")
}

func hasNodePorts(svc *corev1.Service) bool {
	if svc.Spec.Type != corev1.ServiceTypeNodePort && svc.Spec.Type != corev1.ServiceTypeLoadBalancer || len(svc.Spec.Ports) == 0 {
		return false
	}
	for _, p := range svc.Spec.Ports {
		if p.NodePort == 0 {
			return false
		}
	}
	return true
}

func ingressIPs(svc *corev1.Service) []string {
	var out []string
	for _, in := range svc.Status.LoadBalancer.Ingress {
		if Family(in.IP) != "" {
			out = append(out, in.IP)
		}
	}
	return out
}

func servicePorts(svc *corev1.Service, port func(corev1.ServicePort) int32) map[string]int32 {
	out := make(map[string]int32, len(svc.Spec.Ports))
	for _, p := range svc.Spec.Ports {
		out[p.Name] = port(p)
	}
	return out
}

// podAddresses are the endpoints of the Service's IPv4 and IPv6 EndpointSlices.
func podAddresses(slices []discoveryv1.EndpointSlice) Addresses {
	a := Addresses{Type: AddressPodIP, Ports: map[string]int32{}}
	for i := range slices {
		s := &slices[i]
		family := familyOfAddressType(s.AddressType)
		if family == "" {
			continue
		}
		for _, p := range s.Ports {
			if p.Port != nil {
				if _, seen := a.Ports[deref(p.Name)]; !seen {
					a.Ports[deref(p.Name)] = *p.Port
				}
			}
		}
		for _, e := range s.Endpoints {
			if len(e.Addresses) == 0 || Family(e.Addresses[0]) != family {
				continue
			}
			ep := Endpoint{Address: e.Addresses[0], Ready: e.Conditions.Ready == nil || *e.Conditions.Ready, Hostname: deref(e.Hostname),
				Zone: deref(e.Zone), NodeName: deref(e.NodeName)}
			a.Endpoints = append(a.Endpoints, ep)
		}
	}
	a.Endpoints = dedupe(a.Endpoints)
	return a
}

// LocalNodes are the nodes with a ready endpoint when the Service's external
// traffic policy is Local (only they answer on the node port); nil otherwise.
func LocalNodes(svc *corev1.Service, slices []discoveryv1.EndpointSlice) map[string]bool {
	if svc.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyLocal {
		return nil
	}
	out := map[string]bool{}
	for _, s := range slices {
		for _, e := range s.Endpoints {
			if e.NodeName != nil && (e.Conditions.Ready == nil || *e.Conditions.Ready) {
				out[*e.NodeName] = true
			}
		}
	}
	return out
}

// nodeAddresses gives, per family, each node's ExternalIP, else its
// InternalIP; a node is ready when its Ready condition is true. only, when
// not nil, keeps those nodes.
func nodeAddresses(nodes []corev1.Node, only map[string]bool) []Endpoint {
	var out []Endpoint
	for i := range nodes {
		n := &nodes[i]
		if only != nil && !only[n.Name] || !n.DeletionTimestamp.IsZero() {
			continue
		}
		for _, f := range families {
			addr := nodeAddress(n, corev1.NodeExternalIP, f)
			if addr == "" {
				addr = nodeAddress(n, corev1.NodeInternalIP, f)
			}
			if addr != "" {
				out = append(out, Endpoint{Address: addr, Ready: NodeReady(n) && !n.Spec.Unschedulable, Zone: n.Labels[corev1.LabelTopologyZone]})
			}
		}
	}
	return dedupe(out)
}

func nodeAddress(n *corev1.Node, t corev1.NodeAddressType, f corev1.IPFamily) string {
	for _, a := range n.Status.Addresses {
		if a.Type == t && Family(a.Address) == f {
			return a.Address
		}
	}
	return ""
}

// NodeReady tells whether the node's Ready condition is true.
func NodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// dedupe sorts endpoints by address and merges duplicates (ready if any is).
func dedupe(eps []Endpoint) []Endpoint {
	sort.SliceStable(eps, func(i, j int) bool { return eps[i].Address < eps[j].Address })
	out := eps[:0]
	for _, e := range eps {
		if n := len(out); n > 0 && out[n-1].Address == e.Address {
			out[n-1].Ready = out[n-1].Ready || e.Ready
			continue
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// describe summarises addresses for a condition message.
func describe(a Addresses) string {
	var addrs []string
	for _, e := range a.Endpoints {
		if e.Ready {
			addrs = append(addrs, e.Address)
		}
	}
	if len(addrs) == 0 {
		return fmt.Sprintf("no ready address yet (%d not ready)", len(a.Endpoints))
	}
	shown := addrs
	if len(shown) > 5 {
		shown = append(shown[:5:5], fmt.Sprintf("... %d more", len(addrs)-5))
	}
	ports := make([]string, 0, len(a.Ports))
	for name, p := range a.Ports {
		if name == "" {
			name = "port"
		}
		ports = append(ports, fmt.Sprintf("%s %d", name, p))
	}
	sort.Strings(ports)
	if len(ports) == 0 {
		ports = []string{"no port"}
	}
	return fmt.Sprintf("%d ready address(es) %s on %s", len(addrs), strings.Join(shown, ", "), strings.Join(ports, ", "))
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
