package serviceexport

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/utils/ptr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

func inRegion(n corev1.Node, region, zone string) corev1.Node {
	n.Labels = map[string]string{corev1.LabelTopologyRegion: region, corev1.LabelTopologyZone: zone}
	return n
}

func TestFromClusterV1beta1Fields(t *testing.T) {
	nodes := []corev1.Node{
		inRegion(node("n1", true, internal("10.0.0.1"), internal("fd00:10::1")), "eu", "eu-1a"),
		inRegion(node("n2", true, internal("10.0.0.2")), "eu", "eu-1b"),
		inRegion(node("n3", true, internal("10.0.0.3")), "us", "us-1a"),
	}
	for _, tc := range []struct {
		name     string
		svc      *corev1.Service
		flat     bool
		slices   []discoveryv1.EndpointSlice
		itp      corev1.ServiceInternalTrafficPolicy
		td       string
		families []corev1.IPFamily
	}{
		{name: "node ports of a dual-stack node: both families", svc: service(withType(corev1.ServiceTypeNodePort), nodePorts(30080)),
			itp: "Cluster", families: []corev1.IPFamily{"IPv4", "IPv6"}},
		{name: "internal traffic policy and traffic distribution as on the Service", svc: service(withType(corev1.ServiceTypeNodePort), nodePorts(30080), func(s *corev1.Service) {
			s.Spec.InternalTrafficPolicy = ptr.To(corev1.ServiceInternalTrafficPolicyLocal)
			s.Spec.TrafficDistribution = ptr.To("PreferClose")
		}), itp: "Local", td: "PreferClose", families: []corev1.IPFamily{"IPv4", "IPv6"}},
		{name: "no address yet: the Service's families, IPv4 first", svc: service(func(s *corev1.Service) {
			s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol, corev1.IPv4Protocol}
		}), itp: "Cluster", families: []corev1.IPFamily{"IPv4", "IPv6"}},
		{name: "pod IPs of one family: that family only", svc: service(func(s *corev1.Service) {
			s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
		}), flat: true, slices: []discoveryv1.EndpointSlice{{AddressType: discoveryv1.AddressTypeIPv6, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"fd00::5"}}}}},
			itp: "Cluster", families: []corev1.IPFamily{"IPv6"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := serviceExport(0, tc.flat)
			e, v := FromCluster("member-1", x, tc.svc, tc.slices, nodes)
			if !v.Valid || e.InternalTrafficPolicy != tc.itp || e.TrafficDistribution != tc.td || !reflect.DeepEqual(e.IPFamilies, tc.families) {
				t.Errorf("export: itp %q td %q families %v, want %q %q %v", e.InternalTrafficPolicy, e.TrafficDistribution, e.IPFamilies, tc.itp, tc.td, tc.families)
			}
			if e.Region != "eu" {
				t.Errorf("region %q, want eu (two nodes of three)", e.Region)
			}
			if want := []string{"eu-1a", "eu-1b", "us-1a"}; !reflect.DeepEqual(e.Zones, want) {
				t.Errorf("zones %v, want every node's zone %v", e.Zones, want)
			}
		})
	}
}

func TestNodeAddressesZoneAndPodNodeName(t *testing.T) {
	nodes := []corev1.Node{inRegion(node("n1", true, internal("10.0.0.1"), external("2001:db8::1"), internal("fd00::1")), "eu", "eu-1a")}
	a := ChooseAddresses(service(withType(corev1.ServiceTypeNodePort), nodePorts(30080)), false, nil, nodes)
	want := []Endpoint{{Address: "10.0.0.1", Ready: true, Zone: "eu-1a"}, {Address: "2001:db8::1", Ready: true, Zone: "eu-1a"}}
	if !reflect.DeepEqual(a.Endpoints, want) {
		t.Errorf("node endpoints %+v, want the IPv4 InternalIP and the IPv6 ExternalIP, with the node's zone: %+v", a.Endpoints, want)
	}
	pods := ChooseAddresses(service(), true, []discoveryv1.EndpointSlice{podSlice(80, podEP{ip: "10.101.0.7", node: "n1", ready: true})}, nil)
	if len(pods.Endpoints) != 1 || pods.Endpoints[0].NodeName != "n1" {
		t.Errorf("pod endpoints %+v, want the Pod's node name", pods.Endpoints)
	}
}

func TestRegion(t *testing.T) {
	n := node("n", true)
	for _, tc := range []struct {
		nodes []corev1.Node
		want  string
	}{
		{nil, ""},
		{[]corev1.Node{n}, ""},
		{[]corev1.Node{inRegion(n, "us", ""), inRegion(n, "eu", ""), inRegion(n, "us", "")}, "us"},
		{[]corev1.Node{inRegion(n, "us", ""), inRegion(n, "eu", "")}, "eu"}, // a tie: the lowest name
	} {
		if got := Region(tc.nodes); got != tc.want {
			t.Errorf("Region = %q, want %q", got, tc.want)
		}
	}
}

func TestZones(t *testing.T) {
	n := node("n", true)
	for _, tc := range []struct {
		nodes []corev1.Node
		want  []string
	}{
		{nil, nil},
		{[]corev1.Node{inRegion(n, "eu", "")}, nil},
		{[]corev1.Node{inRegion(n, "eu", "eu-1b"), inRegion(n, "eu", "eu-1a"), inRegion(n, "eu", "eu-1b"), inRegion(n, "eu", "")}, []string{"eu-1a", "eu-1b"}},
	} {
		if got := Zones(tc.nodes); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Zones = %v, want %v", got, tc.want)
		}
	}
}

func TestExportedMetadata(t *testing.T) {
	x := serviceExport(0, false)
	x.Labels = map[string]string{"own": "not exported"}
	x.Spec.ExportedLabels = map[string]string{"team": "a", "app.kubernetes.io/managed-by": "me", "multicluster.kubernetes.io/service-name": "x", "bad key!": "v", "tier": "not a valid value!"}
	x.Spec.ExportedAnnotations = map[string]string{"note": "hello world!", "federation.antreaplus.io/address-types": "forged"}
	labels, annotations, dropped := ExportedMetadata(x)
	if !reflect.DeepEqual(labels, map[string]string{"team": "a"}) || !reflect.DeepEqual(annotations, map[string]string{"note": "hello world!"}) {
		t.Errorf("labels %v annotations %v, want team=a and note only", labels, annotations)
	}
	if len(dropped) != 5 {
		t.Errorf("dropped %q, want 5 keys named", dropped)
	}
	e, v := FromCluster("member-1", x, service(), nil, nil)
	if !v.Valid || v.Reason != mcsv1beta1.ServiceExportReasonValid || !reflect.DeepEqual(e.ExportedLabels, labels) {
		t.Fatalf("FromCluster = %+v, %+v: an export with reserved keys stays valid, without them", e, v)
	}
	for _, says := range []string{"label app.kubernetes.io/managed-by is reserved", "annotation federation.antreaplus.io/address-types is reserved",
		"label bad key! is not valid", "remove them from spec.exportedLabels"} {
		if !strings.Contains(v.Message, says) {
			t.Errorf("Valid message %q does not say %q", v.Message, says)
		}
	}
	if _, _, dropped := ExportedMetadata(serviceExport(0, false)); dropped != nil {
		t.Errorf("an export without exported metadata drops %v", dropped)
	}
}
