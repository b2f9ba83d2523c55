package dnsendpoints

import (
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/externaldns/records"
)

func TestExporterOf(t *testing.T) {
	node := func(name, zone string, ready, unschedulable bool, addrs ...corev1.NodeAddress) corev1.Node {
		st := corev1.ConditionFalse
		if ready {
			st = corev1.ConditionTrue
		}
		return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelTopologyRegion: "eu", corev1.LabelTopologyZone: zone}},
			Spec:   corev1.NodeSpec{Unschedulable: unschedulable},
			Status: corev1.NodeStatus{Addresses: addrs, Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: st}}}}
	}
	ext := func(ip string) corev1.NodeAddress {
		return corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: ip}
	}
	internal := func(ip string) corev1.NodeAddress {
		return corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: ip}
	}
	nodes := []corev1.Node{
		node("n1", "eu-1a", true, false, internal("10.0.0.1"), ext("198.51.100.1"), ext("2001:db8::1")),
		node("n2", "eu-1b", false, false, ext("198.51.100.2")),
		node("n3", "eu-1b", true, true, ext("198.51.100.3")),
		node("n4", "eu-1b", true, false, internal("10.0.0.4")),
	}
	export := func(annotations map[string]string, valid metav1.ConditionStatus) *mcsv1beta1.ServiceExport {
		e := &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", Annotations: annotations}}
		if valid != "" {
			e.Status.Conditions = []metav1.Condition{{Type: string(mcsv1beta1.ServiceExportConditionValid), Status: valid}}
		}
		return e
	}
	svc := func(typ corev1.ServiceType, etp corev1.ServiceExternalTrafficPolicy, ingress ...corev1.LoadBalancerIngress) *corev1.Service {
		return &corev1.Service{Spec: corev1.ServiceSpec{Type: typ, ExternalTrafficPolicy: etp,
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, NodePort: 30080, Protocol: corev1.ProtocolTCP}, {Port: 9090, NodePort: 30090}}},
			Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: ingress}}}
	}
	ports := []records.Port{{Name: "http", Protocol: "TCP", Port: 80, NodePort: 30080}, {Port: 9090, NodePort: 30090}}
	base := records.Exporter{ClusterID: "m1", Region: "eu", Zones: []string{"eu-1a", "eu-1b"}, Kind: records.KindOther, Reachable: true}
	with := func(f func(e *records.Exporter)) records.Exporter {
		e := base
		f(&e)
		return e
	}
	// Sorted by address, whatever the order of the nodes.
	allNodes := []records.NodeAddress{{IP: "198.51.100.1", Zone: "eu-1a", Ready: true},
		{IP: "198.51.100.2", Zone: "eu-1b"}, {IP: "198.51.100.3", Zone: "eu-1b"}, {IP: "2001:db8::1", Zone: "eu-1a", Ready: true}}
	tests := []struct {
		name string
		src  Source
		want records.Exporter
	}{
		{"load balancer: ingress IPs and hostnames", Source{Export: export(nil, ""), Service: svc(corev1.ServiceTypeLoadBalancer, "",
			corev1.LoadBalancerIngress{IP: "203.0.113.1"}, corev1.LoadBalancerIngress{Hostname: "lb.example.com"})},
			with(func(e *records.Exporter) {
				e.Kind, e.Ready, e.Ports = records.KindLoadBalancer, true, ports
				e.LoadBalancerIPs, e.LoadBalancerHostnames = []string{"203.0.113.1"}, []string{"lb.example.com"}
			})},
		{"node port: every node's ExternalIPs, with zone and readiness (not ready, unschedulable: not ready); no InternalIP",
			Source{Export: export(nil, metav1.ConditionTrue), Service: svc(corev1.ServiceTypeNodePort, "")},
			with(func(e *records.Exporter) {
				e.Kind, e.Ready, e.Ports, e.NodeAddresses = records.KindNodePort, true, ports, allNodes
			})},
		{"node port with externalTrafficPolicy Local: only nodes with a ready endpoint",
			Source{Export: export(nil, ""), Service: svc(corev1.ServiceTypeNodePort, corev1.ServiceExternalTrafficPolicyLocal),
				Slices: []discoveryv1.EndpointSlice{{Endpoints: []discoveryv1.Endpoint{
					{NodeName: ptr.To("n1"), Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}},
					{NodeName: ptr.To("n2"), Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(false)}}}}}},
			with(func(e *records.Exporter) {
				e.Kind, e.Ready, e.Ports, e.NodeAddresses = records.KindNodePort, true, ports, []records.NodeAddress{allNodes[0], allNodes[3]}
			})},
		{"ClusterIP: not reachable from outside", Source{Export: export(nil, ""), Service: svc(corev1.ServiceTypeClusterIP, "")},
			with(func(e *records.Exporter) { e.Kind, e.Ready, e.Ports = records.KindOther, true, ports })},
		{"flat network export of a NodePort Service: Pod IPs, not published", Source{Export: export(map[string]string{federationv1alpha1.AnnotationFlatNetwork: "true"}, ""),
			Service: svc(corev1.ServiceTypeNodePort, "")},
			with(func(e *records.Exporter) { e.Kind, e.Ready, e.Ports = records.KindOther, true, ports })},
		{"invalid export: not ready", Source{Export: export(nil, metav1.ConditionFalse), Service: svc(corev1.ServiceTypeLoadBalancer, "", corev1.LoadBalancerIngress{IP: "203.0.113.1"})},
			with(func(e *records.Exporter) {
				e.Kind, e.Ports, e.LoadBalancerIPs = records.KindLoadBalancer, ports, []string{"203.0.113.1"}
			})},
		{"opted out", Source{Export: export(map[string]string{records.OptOutAnnotation: "False"}, ""), Service: svc(corev1.ServiceTypeLoadBalancer, "")},
			with(func(e *records.Exporter) {
				e.Kind, e.Ready, e.Ports, e.OptOut = records.KindLoadBalancer, true, ports, true
			})},
		{"exported without its Service: not ready", Source{Export: export(nil, "")}, base},
	}
	reversed := slices.Clone(nodes)
	slices.Reverse(reversed)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The nodes as one cache lists them, and in another order: the
			// same exporter (it is stored and compared as it is).
			for _, ns := range [][]corev1.Node{nodes, reversed} {
				tt.src.ClusterID, tt.src.Nodes = "m1", ns
				if got := ExporterOf(tt.src); !reflect.DeepEqual(got, tt.want) {
					t.Errorf("ExporterOf:\ngot  %+v\nwant %+v", got, tt.want)
				}
			}
		})
	}
}

func TestNodeDigest(t *testing.T) {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{corev1.LabelTopologyZone: "z"}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "198.51.100.1"}}}}
	heartbeat := n.DeepCopy()
	heartbeat.Status.Conditions[0].LastHeartbeatTime = metav1.Now()
	heartbeat.ResourceVersion = "2"
	if nodeDigest(n) != nodeDigest(heartbeat) {
		t.Error("a heartbeat changed the digest")
	}
	for name, change := range map[string]func(*corev1.Node){
		"zone":      func(n *corev1.Node) { n.Labels[corev1.LabelTopologyZone] = "z2" },
		"readiness": func(n *corev1.Node) { n.Status.Conditions[0].Status = corev1.ConditionFalse },
		"cordon":    func(n *corev1.Node) { n.Spec.Unschedulable = true },
		"address":   func(n *corev1.Node) { n.Status.Addresses[0].Address = "198.51.100.2" },
	} {
		c := n.DeepCopy()
		change(c)
		if nodeDigest(n) == nodeDigest(c) {
			t.Errorf("a change of %s left the digest alone", name)
		}
	}
}
