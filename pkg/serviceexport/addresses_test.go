package serviceexport

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

func TestValidate(t *testing.T) {
	deleting := service()
	deleting.DeletionTimestamp = &metav1.Time{Time: t0}
	for _, tc := range []struct {
		name   string
		svc    *corev1.Service
		valid  bool
		reason mcsv1beta1.ServiceExportConditionReason
	}{
		{"no service", nil, false, mcsv1beta1.ServiceExportReasonNoService},
		{"external name", service(withType(corev1.ServiceTypeExternalName)), false, mcsv1beta1.ServiceExportReasonInvalidServiceType},
		{"service being deleted", deleting, false, mcsv1beta1.ServiceExportReasonNoService},
		{"cluster ip", service(), true, mcsv1beta1.ServiceExportReasonValid},
		{"headless", service(headless()), true, mcsv1beta1.ServiceExportReasonValid},
		{"node port", service(withType(corev1.ServiceTypeNodePort), nodePorts(30080)), true, mcsv1beta1.ServiceExportReasonValid},
		{"load balancer", service(withType(corev1.ServiceTypeLoadBalancer)), true, mcsv1beta1.ServiceExportReasonValid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Validate(tc.svc)
			if v.Valid != tc.valid || v.Reason != tc.reason || v.Message == "" {
				t.Errorf("Validate = %+v, want valid=%v reason=%s with a message", v, tc.valid, tc.reason)
			}
			c := ValidCondition(v, 3)
			if c.Type != "Valid" || c.Reason != string(tc.reason) || c.ObservedGeneration != 3 || (c.Status == metav1.ConditionTrue) != tc.valid {
				t.Errorf("ValidCondition = %+v", c)
			}
		})
	}
}

func TestChooseAddresses(t *testing.T) {
	nodes := []corev1.Node{
		node("n1", true, internal("10.0.0.1")),
		node("n2", true, internal("10.0.0.2"), external("198.51.100.2")),
		node("n3", false, internal("10.0.0.3")),
		node("n4", true, internal("10.0.0.1")), // kwok gives every node the same IP: one endpoint
		node("n5", true),                       // no address
	}
	pods := []discoveryv1.EndpointSlice{podSlice(8080,
		podEP{ip: "10.101.0.5", node: "n1", hostname: "web-0", ready: true},
		podEP{ip: "10.101.0.6", node: "n3", ready: false},
		podEP{ip: "10.101.0.5", node: "n1", ready: true}, // duplicate across slices
	), {AddressType: discoveryv1.AddressTypeIPv6, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"fd00::1"}}, {Addresses: []string{"10.101.0.9"}}}},
		{AddressType: discoveryv1.AddressTypeFQDN, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"example.com"}}}}}
	local := service(withType(corev1.ServiceTypeNodePort), nodePorts(30080))
	local.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	noNodePorts := service(withType(corev1.ServiceTypeLoadBalancer))
	for _, tc := range []struct {
		name      string
		svc       *corev1.Service
		flat      bool
		wantType  AddressType
		wantAddrs []string // ready ones
		notReady  []string
		wantPorts map[string]int32
		note      string
	}{
		{"load balancer with ingress", service(withType(corev1.ServiceTypeLoadBalancer), nodePorts(30080), ingress("203.0.113.10", "2001:db8::1")),
			false, AddressLoadBalancer, []string{"2001:db8::1", "203.0.113.10"}, nil, map[string]int32{"http": 80}, "exported as LoadBalancer"},
		{"load balancer waiting for its ip: node ports stand in", service(withType(corev1.ServiceTypeLoadBalancer), nodePorts(30080)),
			false, AddressNodePort, []string{"10.0.0.1", "198.51.100.2"}, []string{"10.0.0.3"}, map[string]int32{"http": 30080}, "no ingress IP yet"},
		{"load balancer without ip nor node ports", noNodePorts, false, AddressLoadBalancer, nil, nil, nil, "waiting for the load balancer"},
		{"node port: external ip preferred, one endpoint per address", service(withType(corev1.ServiceTypeNodePort), nodePorts(30080)),
			false, AddressNodePort, []string{"10.0.0.1", "198.51.100.2"}, []string{"10.0.0.3"}, map[string]int32{"http": 30080}, "exported as NodePort"},
		{"node port with local traffic policy: only nodes with a ready endpoint", local,
			false, AddressNodePort, []string{"10.0.0.1"}, nil, map[string]int32{"http": 30080}, "exported as NodePort"},
		{"cluster ip without flat network", service(), false, AddressNone, nil, nil, nil, "make it a NodePort or LoadBalancer"},
		{"headless without flat network", service(headless()), false, AddressNone, nil, nil, nil, "only over a flat network"},
		{"cluster ip over a flat network: pod ips of both families on target ports", service(), true, AddressPodIP,
			[]string{"10.101.0.5", "fd00::1"}, []string{"10.101.0.6"}, map[string]int32{"http": 8080}, "flat network"},
		{"flat network wins over a load balancer", service(withType(corev1.ServiceTypeLoadBalancer), ingress("203.0.113.10")), true, AddressPodIP,
			[]string{"10.101.0.5", "fd00::1"}, []string{"10.101.0.6"}, map[string]int32{"http": 8080}, "flat network"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := ChooseAddresses(tc.svc, tc.flat, pods, nodes)
			var ready, notReady []string
			for _, e := range a.Endpoints {
				if e.Ready {
					ready = append(ready, e.Address)
				} else {
					notReady = append(notReady, e.Address)
				}
			}
			if a.Type != tc.wantType || !reflect.DeepEqual(ready, tc.wantAddrs) || !reflect.DeepEqual(notReady, tc.notReady) {
				t.Errorf("got %s ready %v not ready %v, want %s ready %v not ready %v", a.Type, ready, notReady, tc.wantType, tc.wantAddrs, tc.notReady)
			}
			if tc.wantPorts != nil && !reflect.DeepEqual(a.Ports, tc.wantPorts) {
				t.Errorf("ports %v, want %v", a.Ports, tc.wantPorts)
			}
			if !strings.Contains(a.Note, tc.note) {
				t.Errorf("note %q does not say %q", a.Note, tc.note)
			}
		})
	}
}

func TestPodAddressesKeepHostnames(t *testing.T) {
	a := ChooseAddresses(service(headless()), true, []discoveryv1.EndpointSlice{podSlice(80, podEP{ip: "10.101.0.7", hostname: "db-0", ready: true})}, nil)
	if len(a.Endpoints) != 1 || a.Endpoints[0].Hostname != "db-0" {
		t.Errorf("endpoints %+v, want db-0's hostname kept for per-host DNS names", a.Endpoints)
	}
}

func TestReadyCondition(t *testing.T) {
	valid := Validity{Valid: true, Reason: mcsv1beta1.ServiceExportReasonValid}
	for _, tc := range []struct {
		name   string
		v      Validity
		a      Addresses
		status metav1.ConditionStatus
		reason mcsv1beta1.ServiceExportConditionReason
	}{
		{"invalid", Validate(nil), Addresses{}, metav1.ConditionFalse, mcsv1beta1.ServiceExportReasonFailed},
		{"nothing reachable", valid, Addresses{Type: AddressNone, Note: "make it a NodePort"}, metav1.ConditionFalse, mcsv1beta1.ServiceExportReasonFailed},
		{"no ready address", valid, Addresses{Type: AddressPodIP, Endpoints: []Endpoint{{Address: "10.0.0.1"}}}, metav1.ConditionFalse, mcsv1beta1.ServiceExportReasonPending},
		{"ready", valid, Addresses{Type: AddressNodePort, Endpoints: []Endpoint{{Address: "10.0.0.1", Ready: true}}}, metav1.ConditionTrue, mcsv1beta1.ServiceExportReasonReady},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ReadyCondition(tc.v, tc.a, 1)
			if c.Type != "Ready" || c.Status != tc.status || c.Reason != string(tc.reason) {
				t.Errorf("ReadyCondition = %+v, want %s %s", c, tc.status, tc.reason)
			}
		})
	}
}

func TestFromCluster(t *testing.T) {
	svc := service(withType(corev1.ServiceTypeNodePort), nodePorts(30080))
	svc.Spec.Ports[0].Protocol = ""
	e, v := FromCluster("member-2", serviceExport(0, false), svc, nil, []corev1.Node{node("n1", true, internal("10.0.0.9"))})
	if !v.Valid || e.Cluster != "member-2" || e.ServiceType != corev1.ServiceTypeNodePort || e.Headless || !e.Created.Time.Equal(t0) {
		t.Fatalf("FromCluster = %+v, %+v", e, v)
	}
	if e.Ports[0].Protocol != corev1.ProtocolTCP || e.SessionAffinity != corev1.ServiceAffinityNone {
		t.Errorf("defaults not applied: %+v", e)
	}
	if _, v := FromCluster("member-2", serviceExport(0, false), nil, nil, nil); v.Valid {
		t.Errorf("an export without Service is valid")
	}
	if !NeedsNodes(serviceExport(0, false), svc) || NeedsNodes(serviceExport(0, true), svc) || NeedsNodes(serviceExport(0, false), service()) {
		t.Errorf("NeedsNodes: nodes are needed exactly for node ports without a flat network")
	}
}
