package view

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func exported(m *Member, ns, name string, typ corev1.ServiceType, lbIP string) {
	m.Exports = append(m.Exports, mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Status: mcsv1beta1.ServiceExportStatus{Conditions: []metav1.Condition{
			{Type: string(mcsv1beta1.ServiceExportConditionValid), Status: metav1.ConditionTrue, Reason: "Valid"},
			{Type: string(mcsv1beta1.ServiceExportConditionReady), Status: metav1.ConditionTrue, Reason: "Ready", Message: "offers " + lbIP},
			{Type: string(mcsv1beta1.ServiceExportConditionConflict), Status: metav1.ConditionFalse, Reason: "NoConflict"}}}})
	svc := corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Type: typ, ClusterIP: "10.96.0.10", Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, NodePort: 30080}}}}
	if lbIP != "" {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: lbIP}}
	}
	m.Services = append(m.Services, svc)
	m.Slices = append(m.Slices, discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-abc",
		Labels: map[string]string{discoveryv1.LabelServiceName: name}}, AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.1.0.5"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports:     []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To(int32(8080))}}})
}

func imported(m *Member, ns, name string, from ...string) {
	imp := mcsv1beta1.ServiceImport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Labels: map[string]string{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation}},
		Spec: mcsv1beta1.ServiceImportSpec{Type: mcsv1beta1.ClusterSetIP, IPs: []string{"10.200.0.7"},
			Ports: []mcsv1beta1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}}}
	for _, c := range from {
		imp.Status.Clusters = append(imp.Status.Clusters, mcsv1beta1.ClusterStatus{Cluster: c})
		m.Slices = append(m.Slices, discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-" + c,
			Labels: map[string]string{discoveryv1.LabelManagedBy: federationv1alpha1.EndpointSliceManagedBy, mcsv1beta1.LabelServiceName: name}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"203.0.113.1"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}}})
	}
	m.Imports = append(m.Imports, imp)
}

func TestServicesOf(t *testing.T) {
	east := member("ctx-east", "east", false, "eu", "eu-1b")
	west := member("ctx-west", "west", false, "us", "us-1a")
	lab := member("ctx-lab", "lab", false, "", "")
	exported(east, "shop", "web", corev1.ServiceTypeLoadBalancer, "203.0.113.1")
	exported(west, "shop", "web", corev1.ServiceTypeNodePort, "")
	imported(lab, "shop", "web", "east", "west")
	lab.DNSEndpoints = []externaldnsv1alpha1.DNSEndpoint{{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: "shop-web",
		Labels: map[string]string{federationv1alpha1.LabelServiceNamespace: "shop", federationv1alpha1.LabelServiceName: "web"}},
		Spec: externaldnsv1alpha1.DNSEndpointSpec{Endpoints: []*externaldnsv1alpha1.Endpoint{{DNSName: "web.shop.prod.svc.ext.example", RecordType: "A",
			Targets: []string{"203.0.113.1"}, RecordTTL: 30}}}}}
	// The user may not read west's EndpointSlices.
	west.Kinds["EndpointSlices"] = KindState{State: NotReadable, Message: "endpointslices is forbidden"}
	v := ServicesOf([]*Member{lab, west, east}, "cluster.local", t0)
	if len(v.Services) != 1 {
		t.Fatalf("services %+v", v.Services)
	}
	s := v.Services[0]
	if s.Namespace != "shop" || s.Name != "web" || s.Type != string(mcsv1beta1.ClusterSetIP) || len(s.Exporters) != 2 || len(s.Importers) != 1 {
		t.Fatalf("service %+v", s)
	}
	if e := s.Exporters[0]; e.Cluster != "east" || e.ServiceType != "LoadBalancer" || e.Ready != "True" {
		t.Errorf("east's export %+v", e)
	}
	if i := s.Importers[0]; i.Cluster != "lab" || i.Endpoints != 2 || !slices.Equal(i.Sources, []string{"east", "west"}) {
		t.Errorf("lab's import %+v", i)
	}
	var names []string
	for _, n := range s.Names {
		names = append(names, n.Scope+" "+n.Name)
	}
	want := []string{"cluster-set web.shop.svc.clusterset.local", "federation web.shop.prod.svc.cluster.local",
		"cluster web.shop.east.prod.svc.cluster.local", "cluster web.shop.west.prod.svc.cluster.local",
		"region web.shop.prod.svc.eu.cluster.local", "region web.shop.prod.svc.us.cluster.local",
		"zone web.shop.prod.svc.eu-1b.eu.cluster.local", "zone web.shop.prod.svc.us-1a.us.cluster.local"}
	if !slices.Equal(names, want) {
		t.Errorf("names\n%v\nwant\n%v", names, want)
	}
	if len(s.Records) != 1 || s.Records[0].Member != "ctx-lab" || s.Records[0].TTL != 30 {
		t.Errorf("records %+v", s.Records)
	}
	if s.Contexts["east"] != "ctx-east" || !slices.Contains(s.Kubectl, "kubectl --context ctx-lab get serviceimports.multicluster.x-k8s.io -n shop web -o yaml") {
		t.Errorf("contexts %v, kubectl %v", s.Contexts, s.Kubectl)
	}
	var unreadable []string
	for _, h := range v.Headers {
		for _, u := range h.Unreadable {
			unreadable = append(unreadable, h.Context+":"+u.Kind)
		}
	}
	if !slices.Equal(unreadable, []string{"ctx-west:EndpointSlices"}) {
		t.Errorf("unreadable %v, want west's EndpointSlices", unreadable)
	}
}

func TestServicesConflict(t *testing.T) {
	east := member("ctx-east", "east", false, "", "")
	exported(east, "shop", "web", corev1.ServiceTypeClusterIP, "")
	east.Exports[0].Status.Conditions[2] = metav1.Condition{Type: string(mcsv1beta1.ServiceExportConditionConflict), Status: metav1.ConditionTrue,
		Reason: "PortConflict", Message: "port http differs from west's"}
	v := ServicesOf([]*Member{east}, "cluster.local", t0)
	if len(v.Services) != 1 || !slices.Equal(v.Services[0].Conflicts, []string{"port http differs from west's"}) {
		t.Errorf("conflicts %+v", v.Services)
	}
}
