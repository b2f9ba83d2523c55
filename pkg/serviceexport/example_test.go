package serviceexport_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	"antreaplus.io/antreaplus/pkg/serviceexport"
)

// Two members export demo/web: member-1 a LoadBalancer Service with its
// ingress IP, member-2 a NodePort Service with one more port. The merge is
// the import every member gets; the port lists differ, so both exports get
// Conflict=True. Then what a leader writes into member-3: the derived
// Service, the ServiceImport and member-3's EndpointSlices.
func Example() {
	created := metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	export := func(cluster string, age time.Duration) *mcsv1beta1.ServiceExport {
		e := &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web"}}
		e.CreationTimestamp = metav1.NewTime(created.Add(-age))
		return e
	}
	lb := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIP: "10.96.0.10",
			IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
			Ports:      []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, NodePort: 30080}}},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "203.0.113.10"}}}},
	}
	np := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, ClusterIP: "10.97.0.10",
			IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
			Ports: []corev1.ServicePort{
				{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, NodePort: 31080},
				{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: 9090, NodePort: 31090}}},
	}
	node := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "192.0.2.21"}}}}

	var exports []serviceexport.Export
	for _, in := range []struct {
		cluster string
		svc     *corev1.Service
		age     time.Duration
		nodes   []corev1.Node
	}{{"member-1", lb, time.Hour, nil}, {"member-2", np, time.Minute, []corev1.Node{node}}} {
		exp, validity := serviceexport.FromCluster(in.cluster, export(in.cluster, in.age), in.svc, nil, in.nodes)
		fmt.Println(in.cluster, "valid:", validity.Valid, exp.ServiceType, exp.Addresses.Type)
		exports = append(exports, exp)
	}
	result, ok := serviceexport.Merge(exports)
	if !ok {
		return
	}
	fmt.Println("import:", result.Type, len(result.Ports), "ports, from", result.Clusters())
	fmt.Println("conflict:", result.Conflict.Status, result.Conflict.Reason)

	svc := serviceexport.DerivedService("demo", "web", result)
	svc.Spec.ClusterIPs = []string{"10.98.0.10"} // as member-3's API server allocated it
	imp := serviceexport.DesiredImport("demo", "web", result, serviceexport.ClusterSetIP{IPs: svc.Spec.ClusterIPs})
	fmt.Println(svc.Name, imp.Name, imp.Spec.IPs)
	for _, s := range serviceexport.DesiredSlices("demo", "web", result, serviceexport.ImportOwner(imp),
		serviceexport.Importer{Cluster: "member-3"}) {
		for _, ep := range s.Endpoints {
			fmt.Println(s.Name, ep.Addresses, len(s.Ports), "ports")
		}
	}
	// Output:
	// member-1 valid: true LoadBalancer LoadBalancer
	// member-2 valid: true NodePort NodePort
	// import: ClusterSetIP 2 ports, from [member-1 member-2]
	// conflict: True PortConflict
	// mcs-web web [10.98.0.10]
	// web-member-1-658e625d [203.0.113.10] 1 ports
	// web-member-2-36e49808 [192.0.2.21] 2 ports
}
