package serviceexport

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// slicePortsOf maps port name to number of a cluster's slices.
func slicePortsOf(slices []*discoveryv1.EndpointSlice, cluster string) map[string]int32 {
	out := map[string]int32{}
	for _, s := range slices {
		if s.Labels[mcsv1beta1.LabelSourceCluster] == cluster {
			for _, p := range s.Ports {
				out[*p.Name] = *p.Port
			}
		}
	}
	return out
}

func TestDesiredSlicesPortsPerAddressType(t *testing.T) {
	r, _ := Merge([]Export{
		export("member-1", 0, withPorts(mport("http", 80, tcp), mport("dns", 53, udp))), // LoadBalancer: service ports
		export("member-2", time.Second, withPorts(mport("http", 8080, tcp), mport("dns", 53, tcp)),
			withAddresses(AddressNodePort, map[string]int32{"http": 30080, "dns": 30053}, "10.0.0.1")),
		export("member-3", 2*time.Second, withAddresses(AddressNone, nil)),
	})
	slices := DesiredSlices("ns", "web", r, nil, Importer{})
	if got := slicePortsOf(slices, "member-1"); fmt.Sprint(got) != "map[dns:53 http:80]" {
		t.Errorf("member-1 (LoadBalancer) ports %v", got)
	}
	// member-2's http port conflicts in number only: its endpoints still
	// serve the import's http port, on their node port. Its dns port is TCP
	// where the import's is UDP: not served.
	if got := slicePortsOf(slices, "member-2"); fmt.Sprint(got) != "map[http:30080]" {
		t.Errorf("member-2 (NodePort, conflicting) ports %v", got)
	}
	// member-3 contributes no address but is recorded by an empty slice.
	var empty *discoveryv1.EndpointSlice
	for _, s := range slices {
		if s.Labels[mcsv1beta1.LabelSourceCluster] == "member-3" {
			empty = s
		}
	}
	if empty == nil || len(empty.Endpoints) != 0 || empty.Annotations[federationv1alpha1.AnnotationAddressType] != "None" {
		t.Errorf("member-3's slice %+v, want one empty slice of address type None", empty)
	}
	for _, s := range slices {
		l := s.Labels
		if l[mcsv1beta1.LabelServiceName] != "web" || l[discoveryv1.LabelManagedBy] != federationv1alpha1.EndpointSliceManagedBy || l[federationv1alpha1.LabelManagedBy] != federationv1alpha1.ManagedByFederation ||
			l[discoveryv1.LabelServiceName] != "mcs-web" || s.Namespace != "ns" {
			t.Errorf("slice %s labels %v", s.Name, l)
		}
	}
}

func TestDesiredSlicesChunksAndNames(t *testing.T) {
	var ips []string
	for i := range 250 {
		ips = append(ips, fmt.Sprintf("10.0.%d.%d", i/200, i%200+1))
	}
	r, _ := Merge([]Export{export("member-1", 0, withAddresses(AddressNodePort, map[string]int32{"http": 30080}, ips...)), export("member-2", time.Second, asHeadless())})
	if r.Type != mcsv1beta1.ClusterSetIP {
		t.Fatal("member-1 is oldest: ClusterSetIP expected")
	}
	slices := DesiredSlices("ns", "web", r, nil, Importer{})
	count, seen := map[string]int{}, map[string]bool{}
	for _, s := range slices {
		count[s.Labels[mcsv1beta1.LabelSourceCluster]] += len(s.Endpoints)
		if seen[s.Name] || len(s.Endpoints) > 100 {
			t.Errorf("slice %s: duplicate name or %d endpoints", s.Name, len(s.Endpoints))
		}
		seen[s.Name] = true
	}
	if len(slices) != 4 || count["member-1"] != 250 || count["member-2"] != 1 {
		t.Errorf("%d slices with %v endpoints, want 3 slices of member-1 (250) and 1 of member-2", len(slices), count)
	}
	long := strings.Repeat("a", 63)
	if n := DerivedServiceName(long); len(n) > 63 || n == DerivedServiceName(strings.Repeat("a", 62)+"b") {
		t.Errorf("DerivedServiceName(%d chars) = %q: too long or ambiguous", len(long), n)
	}
	if SliceName("a-b", "c", 0) == SliceName("a", "b-c", 0) {
		t.Error("slice names of different (name, cluster) pairs collide")
	}
}

func TestDesiredImportAndDerivedService(t *testing.T) {
	r, _ := Merge([]Export{export("member-2", 0, withAffinity(corev1.ServiceAffinityClientIP)), export("member-1", time.Second,
		withAddresses(AddressNodePort, map[string]int32{"http": 30080}, "10.0.0.1"))})
	imp := DesiredImport("ns", "web", r, ClusterSetIP{IPs: []string{"10.202.0.7"}})
	if imp.Spec.Type != mcsv1beta1.ClusterSetIP || fmt.Sprint(imp.Spec.IPs) != "[10.202.0.7]" || imp.Spec.SessionAffinity != corev1.ServiceAffinityClientIP {
		t.Errorf("import spec %+v", imp.Spec)
	}
	if fmt.Sprint(imp.Status.Clusters) != "[{member-1} {member-2}]" || imp.Annotations[federationv1alpha1.AnnotationAddressTypes] != "member-1=NodePort,member-2=LoadBalancer" ||
		imp.Annotations[federationv1alpha1.AnnotationDerivedService] != "mcs-web" {
		t.Errorf("import status %v annotations %v", imp.Status.Clusters, imp.Annotations)
	}
	svc := DerivedService("ns", "web", r)
	if svc.Name != "mcs-web" || len(svc.Spec.Selector) != 0 || svc.Spec.Ports[0].Port != 80 || svc.Spec.SessionAffinity != corev1.ServiceAffinityClientIP {
		t.Errorf("derived service %+v", svc.Spec)
	}

	h, _ := Merge([]Export{export("member-1", 0, asHeadless())})
	himp := DesiredImport("ns", "db", h, ClusterSetIP{IPs: []string{"10.202.0.8"}})
	if himp.Spec.Type != mcsv1beta1.Headless || len(himp.Spec.IPs) != 0 || himp.Spec.SessionAffinity != "" {
		t.Errorf("headless import spec %+v: no IP, no affinity", himp.Spec)
	}
	for _, s := range DesiredSlices("ns", "db", h, nil, Importer{}) {
		if _, ok := s.Labels[discoveryv1.LabelServiceName]; ok {
			t.Errorf("headless slice %s names a derived Service", s.Name)
		}
	}
}

func TestExportFromSlicesRoundTrip(t *testing.T) {
	a := export("member-1", 0, withPorts(mport("http", 80, tcp), mport("dns", 53, udp)))
	a.Addresses = Addresses{Type: AddressPodIP, Ports: map[string]int32{"http": 8080, "dns": 5353},
		Endpoints: []Endpoint{{Address: "10.101.0.1", Ready: true, Hostname: "web-0", Zone: "z"}, {Address: "10.101.0.2"}}}
	b := export("member-2", time.Second)
	r, _ := Merge([]Export{a, b})
	slices := DesiredSlices("ns", "web", r, nil, Importer{})
	var fromA []discoveryv1.EndpointSlice
	for _, s := range slices {
		if s.Labels[mcsv1beta1.LabelSourceCluster] == "member-1" {
			fromA = append(fromA, *s)
		}
	}
	kept, ok := ExportFromSlices("member-1", fromA)
	if !ok {
		t.Fatal("no export recorded in member-1's slices")
	}
	r2, _ := Merge([]Export{kept, b})
	again := DesiredSlices("ns", "web", r2, nil, Importer{})
	if len(again) != len(slices) {
		t.Fatalf("%d slices after the round trip, want %d", len(again), len(slices))
	}
	for i := range slices {
		if !SliceMatches(again[i], slices[i]) {
			t.Errorf("slice %s changed after the round trip:\n%+v\n%+v", slices[i].Name, again[i], slices[i])
		}
	}
	if _, ok := ExportFromSlices("member-1", []discoveryv1.EndpointSlice{{}}); ok {
		t.Error("a slice without the source annotation gave an export")
	}
}

func TestMatchesIgnoreServerDefaultsAndTerm(t *testing.T) {
	r, _ := Merge([]Export{export("member-1", 0)})
	want := DerivedService("ns", "web", r)
	have := want.DeepCopy()
	have.Spec.ClusterIP, have.Spec.ClusterIPs = "10.202.0.9", []string{"10.202.0.9"}
	have.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	have.Annotations = map[string]string{federationv1alpha1.AnnotationLeaderTerm: "4"}
	if !ServiceMatches(have, want) {
		t.Error("a Service with server defaults and a term annotation does not match")
	}
	have.Spec.Ports[0].Port = 81
	if ServiceMatches(have, want) {
		t.Error("a Service with another port matches")
	}

	s := DesiredSlices("ns", "web", r, nil, Importer{})[0]
	hs := s.DeepCopy()
	hs.Annotations[federationv1alpha1.AnnotationLeaderTerm] = "4"
	if !SliceMatches(hs, s) {
		t.Error("a slice with a term annotation does not match")
	}
	hs.Endpoints[0].Conditions.Ready = new(bool)
	if SliceMatches(hs, s) {
		t.Error("a slice with another endpoint readiness matches")
	}
	imp := DesiredImport("ns", "web", r, ClusterSetIP{IPs: []string{"10.202.0.9"}})
	himp := imp.DeepCopy()
	himp.Labels["extra"] = "x"
	if ImportSpecMatches(himp, imp) || !equality.Semantic.DeepEqual(himp.Spec, imp.Spec) {
		t.Error("an import with an extra label matches")
	}
}
