package importcache

import (
	"net/netip"
	"reflect"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func TestConvertImport(t *testing.T) {
	si := &mcsv1beta1.ServiceImport{
		ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web", ResourceVersion: "7", Annotations: map[string]string{"big": "x"}},
		Spec: mcsv1beta1.ServiceImportSpec{Type: mcsv1beta1.ClusterSetIP, IPs: []string{"10.0.0.1", "fd00::1", "bogus"},
			Ports:               []mcsv1beta1.ServicePort{{Name: "http", Port: 80}, {Port: 53, Protocol: "UDP"}},
			TrafficDistribution: ptr.To("PreferClose")},
	}
	got, err := NewConverter().Import(si)
	if err != nil {
		t.Fatal(err)
	}
	want := &Import{Namespace: "a", Name: "web",
		IPs:         []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("fd00::1")},
		Ports:       []Port{{Name: "http", Protocol: "TCP", Port: 80}, {Protocol: "UDP", Port: 53}},
		PreferClose: true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Import() = %+v, want %+v", got, want)
	}
	if _, err := NewConverter().Import(&discoveryv1.EndpointSlice{}); err == nil {
		t.Error("converting an EndpointSlice as an import did not fail")
	}
}

func TestConvertSlice(t *testing.T) {
	es := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web-c1", Labels: map[string]string{
			mcsv1beta1.LabelServiceName: "web", mcsv1beta1.LabelSourceCluster: "c1"},
			Annotations: map[string]string{federationv1alpha1.AnnotationSourceRegion: "eu", federationv1alpha1.AnnotationSourceZones: "eu-1a,eu-1b"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](31080)}},
		Endpoints: []discoveryv1.Endpoint{
			{Addresses: []string{"1.1.1.1"}, Hostname: ptr.To("web-0"), Zone: ptr.To("eu-1a")},
			{Addresses: []string{"1.1.1.2"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}},
			{Addresses: []string{"1.1.1.3"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(false)}},
		},
	}
	got, err := NewConverter().Slice(es)
	if err != nil {
		t.Fatal(err)
	}
	want := &Slice{Namespace: "a", Name: "web-c1", Service: "web", Cluster: "c1", Region: "eu", Zones: []string{"eu-1a", "eu-1b"},
		Ports: []Port{{Name: "http", Protocol: "TCP", Port: 31080}},
		Endpoints: []Endpoint{
			{Hostname: "web-0", Addrs: []netip.Addr{netip.MustParseAddr("1.1.1.1")}, Zone: "eu-1a"},
			{Addrs: []netip.Addr{netip.MustParseAddr("1.1.1.2")}},
		}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Slice() = %+v, want %+v", got, want)
	}
}

func TestSliceInZone(t *testing.T) {
	s := &Slice{Zones: []string{"eu-1a", "eu-1b"}}
	for _, tc := range []struct {
		e    Endpoint
		zone string
		want bool
	}{
		{Endpoint{Zone: "eu-1a"}, "eu-1a", true},
		{Endpoint{Zone: "eu-1a"}, "EU-1A", true},
		{Endpoint{Zone: "eu-1a"}, "eu-1b", false}, // its own zone only, not the cluster's others
		{Endpoint{}, "eu-1b", true},               // no zone of its own: each of the cluster's
		{Endpoint{}, "eu-1c", false},
		{Endpoint{Zone: "eu-1c"}, "eu-1c", true},
	} {
		if got := s.InZone(tc.e, tc.zone); got != tc.want {
			t.Errorf("InZone(%q, %q) = %v, want %v", tc.e.Zone, tc.zone, got, tc.want)
		}
	}
	if (&Slice{}).InZone(Endpoint{}, "eu-1a") {
		t.Error("an endpoint without a zone in a slice without source zones is in a zone")
	}
}
