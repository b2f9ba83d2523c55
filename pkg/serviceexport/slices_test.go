package serviceexport

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/serviceexport/locality"
)

// sliceSummary is "name type [address(zone)>hints ...]" per slice.
func sliceSummary(slices []*discoveryv1.EndpointSlice) []string {
	var out []string
	for _, s := range slices {
		var eps []string
		for _, e := range s.Endpoints {
			ep := e.Addresses[0]
			if e.Zone != nil {
				ep += "(" + *e.Zone + ")"
			}
			if e.Hints != nil {
				var zs []string
				for _, z := range e.Hints.ForZones {
					zs = append(zs, z.Name)
				}
				ep += ">" + strings.Join(zs, "+")
			}
			eps = append(eps, ep)
		}
		out = append(out, fmt.Sprintf("%s %s %v", s.Name, s.AddressType, eps))
	}
	return out
}

func withEndpoints(eps ...Endpoint) expMod {
	return func(e *Export) { e.Addresses.Endpoints = eps; e.IPFamilies = e.Addresses.Families() }
}

func withRegion(r string) expMod { return func(e *Export) { e.Region = r } }

func withZones(z ...string) expMod { return func(e *Export) { e.Zones = z } }

func TestDesiredSlicesPerFamily(t *testing.T) {
	r, _ := Merge([]Export{
		export("m1", 0, withIPs("10.0.0.1", "fd00::1", "fd00::2"), withRegion("eu"), withZones("eu-1a", "eu-1b")),
		export("m2", time.Second, withIPs("fd00::3")),
		export("m3", 2*time.Second, withIPs(), func(e *Export) { e.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol} }),
		export("m4", 3*time.Second, withIPs()),
	})
	slices := DesiredSlices("ns", "web", r, nil, Importer{})
	h := func(c string) string { return shortHash("web/" + c) }
	want := []string{
		"web-m1-" + h("m1") + " IPv4 [10.0.0.1]",
		"web-m1-" + h("m1") + "-v6 IPv6 [fd00::1 fd00::2]",
		"web-m2-" + h("m2") + "-v6 IPv6 [fd00::3]", // no empty IPv4 slice
		"web-m3-" + h("m3") + "-v6 IPv6 []",        // no endpoint: one slice of its family
		"web-m4-" + h("m4") + " IPv4 []",
	}
	if got := sliceSummary(slices); !reflect.DeepEqual(got, want) {
		t.Errorf("slices\n %s\nwant\n %s", strings.Join(got, "\n "), strings.Join(want, "\n "))
	}
	if slices[0].Annotations[federationv1alpha1.AnnotationSourceRegion] != "eu" || slices[1].Annotations[federationv1alpha1.AnnotationSourceRegion] != "eu" {
		t.Errorf("m1's slices do not record its region: %v", slices[0].Annotations)
	}
	if slices[0].Annotations[federationv1alpha1.AnnotationSourceZones] != "eu-1a,eu-1b" || slices[1].Annotations[federationv1alpha1.AnnotationSourceZones] != "eu-1a,eu-1b" {
		t.Errorf("m1's slices do not record its zones: %v", slices[0].Annotations)
	}
	for _, a := range []string{federationv1alpha1.AnnotationSourceRegion, federationv1alpha1.AnnotationSourceZones} {
		if _, ok := slices[2].Annotations[a]; ok {
			t.Errorf("m2's place is unknown, yet its slice has %s", a)
		}
	}
}

func TestDesiredSlicesHints(t *testing.T) {
	exports := func(td string) []Export {
		return []Export{
			export("member-1", 0, withTD(td), withRegion("eu"), withEndpoints(
				Endpoint{Address: "10.1.0.1", Ready: true, Zone: "eu-1a"}, Endpoint{Address: "10.1.0.2", Zone: "eu-1a"},
				Endpoint{Address: "fd00::1", Ready: true, Zone: "eu-1b"})),
			export("member-2", time.Second, withTD(td), withRegion("eu"), withEndpoints(
				Endpoint{Address: "10.2.0.1", Ready: true, Zone: "eu-1b"}, Endpoint{Address: "fd00::2", Ready: true, Zone: "eu-1a"})),
			export("member-3", 2*time.Second, withTD(td), withRegion("us"), withIPs("203.0.113.3")),
		}
	}
	zones := map[string]string{"eu-1a": "eu", "eu-1b": "eu"}
	r, _ := Merge(exports("PreferClose"))
	got := sliceSummary(DesiredSlices("ns", "web", r, nil, Importer{Cluster: "member-1", Zones: zones}))
	far := locality.FartherZone
	// IPv4: member-1's ready endpoint (eu-1a) serves both zones; the not
	// ready one gets no hint. IPv6 is its own set: member-1's eu-1b endpoint.
	want := []string{
		"[10.1.0.1(eu-1a)>eu-1a+eu-1b 10.1.0.2(eu-1a)]", "[fd00::1(eu-1b)>eu-1a+eu-1b]",
		"[10.2.0.1(eu-1b)>" + far + "]", "[fd00::2(eu-1a)>" + far + "]", "[203.0.113.3>" + far + "]"}
	for i := range want {
		if !strings.HasSuffix(got[i], want[i]) {
			t.Errorf("slice %s, want endpoints %s", got[i], want[i])
		}
	}
	// Seen from member-4 in eu-1b: the same zone, then the same region.
	got = sliceSummary(DesiredSlices("ns", "web", r, nil, Importer{Cluster: "member-4", Zones: map[string]string{"eu-1b": "eu"}}))
	if !strings.HasSuffix(got[0], "[10.1.0.1(eu-1a)>"+far+" 10.1.0.2(eu-1a)]") || !strings.HasSuffix(got[2], "[10.2.0.1(eu-1b)>eu-1b]") {
		t.Errorf("hints from member-4: %v", got)
	}
	for _, tc := range []struct {
		name string
		td   string
		imp  Importer
	}{
		{"not PreferClose: no hints", "", Importer{Cluster: "member-1", Zones: zones}},
		{"importer without zones: no hints", "PreferClose", Importer{Cluster: "member-1"}},
	} {
		r, _ := Merge(exports(tc.td))
		for _, s := range DesiredSlices("ns", "web", r, nil, tc.imp) {
			for _, e := range s.Endpoints {
				if e.Hints != nil {
					t.Errorf("%s: %s has hints %v", tc.name, e.Addresses[0], e.Hints)
				}
			}
		}
	}
}

func TestDesiredSlicesNodeNameOnlyInItsOwnCluster(t *testing.T) {
	r, _ := Merge([]Export{export("member-1", 0, withEndpoints(Endpoint{Address: "10.1.0.1", Ready: true, NodeName: "n1"}))})
	for imp, want := range map[string]bool{"member-1": true, "member-2": false} {
		s := DesiredSlices("ns", "web", r, nil, Importer{Cluster: imp})[0]
		if got := s.Endpoints[0].NodeName != nil; got != want {
			t.Errorf("importer %s: node name set %v, want %v", imp, got, want)
		}
	}
}

func TestExportFromSlicesRoundTripV1beta1(t *testing.T) {
	a := export("member-1", 0, withITP("Local"), withTD("PreferClose"), withRegion("eu"), withZones("eu-1a", "eu-1b"), withLabels("team", "a"), withAnnotations("note", "x"),
		withEndpoints(Endpoint{Address: "10.1.0.1", Ready: true, Zone: "eu-1a", NodeName: "n1"}, Endpoint{Address: "fd00::1", Ready: true, Zone: "eu-1b"}))
	a.Addresses.Type = AddressPodIP
	b := export("member-2", time.Second, withIPs())
	imp := Importer{Cluster: "member-1", Zones: map[string]string{"eu-1a": "eu"}}
	r, _ := Merge([]Export{a, b})
	slices := DesiredSlices("ns", "web", r, nil, imp)
	var fromA []discoveryv1.EndpointSlice
	for _, s := range slices {
		if s.Labels[mcsv1beta1.LabelSourceCluster] == "member-1" {
			fromA = append(fromA, *s)
		}
	}
	kept, ok := ExportFromSlices("member-1", fromA)
	if !ok {
		t.Fatal("no export recorded")
	}
	if kept.InternalTrafficPolicy != "Local" || kept.TrafficDistribution != "PreferClose" || kept.Region != "eu" || strings.Join(kept.Zones, ",") != "eu-1a,eu-1b" ||
		familyWords(kept.IPFamilies) != "IPv4,IPv6" || kept.ExportedLabels["team"] != "a" || kept.ExportedAnnotations["note"] != "x" {
		t.Errorf("kept export lost v1beta1 fields: %+v", kept)
	}
	r2, _ := Merge([]Export{kept, b})
	if !reflect.DeepEqual(r2.Conflict, r.Conflict) || !reflect.DeepEqual(r2.Labels, r.Labels) {
		t.Errorf("the merge changed after the round trip: %+v, want %+v", r2.Conflict, r.Conflict)
	}
	again := DesiredSlices("ns", "web", r2, nil, imp)
	for i := range slices {
		if !SliceMatches(again[i], slices[i]) {
			t.Errorf("slice %s changed after the round trip:\n%+v\n%+v", slices[i].Name, again[i], slices[i])
		}
	}
}
