package serviceexport

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// Builders with functional modifiers, so each test case says only what matters to it.

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

type svcMod func(*corev1.Service)

func service(mods ...svcMod) *corev1.Service {
	s := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.201.0.10",
			Ports: []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80}}},
	}
	for _, m := range mods {
		m(s)
	}
	return s
}

func withType(t corev1.ServiceType) svcMod { return func(s *corev1.Service) { s.Spec.Type = t } }

func headless() svcMod { return func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone } }

func nodePorts(ports ...int32) svcMod {
	return func(s *corev1.Service) {
		for i := range s.Spec.Ports {
			s.Spec.Ports[i].NodePort = ports[i]
		}
	}
}

func ingress(ips ...string) svcMod {
	return func(s *corev1.Service) {
		for _, ip := range ips {
			s.Status.LoadBalancer.Ingress = append(s.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{IP: ip})
		}
	}
}

func node(name string, ready bool, addrs ...corev1.NodeAddress) corev1.Node {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelTopologyZone: "z1"}},
		Status: corev1.NodeStatus{Addresses: addrs, Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}}}
}

func internal(ip string) corev1.NodeAddress {
	return corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: ip}
}

func external(ip string) corev1.NodeAddress {
	return corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: ip}
}

type podEP struct {
	ip, node, hostname string
	ready              bool
}

func podSlice(targetPort int32, eps ...podEP) discoveryv1.EndpointSlice {
	s := discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4,
		Ports: []discoveryv1.EndpointPort{{Name: ptr.To("http"), Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(targetPort)}}}
	for _, e := range eps {
		ep := discoveryv1.Endpoint{Addresses: []string{e.ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(e.ready)}}
		if e.node != "" {
			ep.NodeName = ptr.To(e.node)
		}
		if e.hostname != "" {
			ep.Hostname = ptr.To(e.hostname)
		}
		s.Endpoints = append(s.Endpoints, ep)
	}
	return s
}

func serviceExport(age time.Duration, flat bool) *mcsv1beta1.ServiceExport {
	e := &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", CreationTimestamp: metav1.NewTime(t0.Add(-age))}}
	if flat {
		e.Annotations = map[string]string{federationv1alpha1.AnnotationFlatNetwork: "true"}
	}
	return e
}

type expMod func(*Export)

// export is a valid export of cluster created at t0+at, with one ready LoadBalancer address.
func export(cluster string, at time.Duration, mods ...expMod) Export {
	e := Export{Cluster: cluster, Created: metav1.NewTime(t0.Add(at)), ServiceType: corev1.ServiceTypeLoadBalancer, SessionAffinity: corev1.ServiceAffinityNone,
		InternalTrafficPolicy: corev1.ServiceInternalTrafficPolicyCluster,
		Ports:                 []mcsv1beta1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80}},
		Addresses:             Addresses{Type: AddressLoadBalancer, Endpoints: []Endpoint{{Address: "203.0.113.1", Ready: true}}, Ports: map[string]int32{"http": 80}}}
	for _, m := range mods {
		m(&e)
	}
	if e.IPFamilies == nil { // as FromCluster: the families of the addresses
		e.IPFamilies = e.Addresses.Families()
	}
	return e
}

func withPorts(ps ...mcsv1beta1.ServicePort) expMod {
	return func(e *Export) {
		e.Ports = ps
		e.Addresses.Ports = map[string]int32{}
		for _, p := range ps {
			e.Addresses.Ports[p.Name] = p.Port
		}
	}
}

func mport(name string, n int32, proto corev1.Protocol) mcsv1beta1.ServicePort {
	return mcsv1beta1.ServicePort{Name: name, Protocol: proto, Port: n}
}

func asHeadless() expMod { return func(e *Export) { e.Headless = true } }

func withAffinity(a corev1.ServiceAffinity) expMod { return func(e *Export) { e.SessionAffinity = a } }

func withAddresses(t AddressType, ports map[string]int32, ips ...string) expMod {
	return func(e *Export) {
		e.Addresses = Addresses{Type: t, Ports: ports}
		for _, ip := range ips {
			e.Addresses.Endpoints = append(e.Addresses.Endpoints, Endpoint{Address: ip, Ready: true})
		}
	}
}

func withITP(p corev1.ServiceInternalTrafficPolicy) expMod {
	return func(e *Export) { e.InternalTrafficPolicy = p }
}

func withTD(td string) expMod { return func(e *Export) { e.TrafficDistribution = td } }

// withIPs replaces the export's addresses (ready, same type and ports).
func withIPs(ips ...string) expMod {
	return func(e *Export) {
		e.Addresses.Endpoints = nil
		for _, ip := range ips {
			e.Addresses.Endpoints = append(e.Addresses.Endpoints, Endpoint{Address: ip, Ready: true})
		}
		e.IPFamilies = e.Addresses.Families()
	}
}

func withLabels(kv ...string) expMod {
	return func(e *Export) { e.ExportedLabels = pairs(kv) }
}

func withAnnotations(kv ...string) expMod {
	return func(e *Export) { e.ExportedAnnotations = pairs(kv) }
}

func pairs(kv []string) map[string]string {
	out := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}
