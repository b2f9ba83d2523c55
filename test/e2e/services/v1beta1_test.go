package services

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/utils/ptr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/serviceexport/locality"
)

// TestV1beta1ConflictsBetweenTwoMembers exports, from member-1 and then a
// second later from member-2, one name per v1beta1 property they disagree
// on; every member imports the oldest export's value (the union for ports
// and families) and both exports report the conflict.
func TestV1beta1ConflictsBetweenTwoMembers(t *testing.T) {
	federation(t)
	ns := sharedNamespace(t)
	exportLBWith(t, "member-1", ns, "ports", []string{"203.0.113.71"}, []svcMod{withPorts(tcp("http", 80), tcp("admin", 81))})
	exportLBWith(t, "member-1", ns, "itp", []string{"203.0.113.72"}, []svcMod{internalTrafficPolicy(corev1.ServiceInternalTrafficPolicyLocal)})
	exportLBWith(t, "member-1", ns, "td", []string{"203.0.113.73"}, []svcMod{trafficDistribution("PreferClose")})
	exportLBWith(t, "member-1", ns, "labels", []string{"203.0.113.74"}, nil, exported(map[string]string{"team": "a"}, nil))
	exportLBWith(t, "member-1", ns, "notes", []string{"203.0.113.75"}, nil, exported(nil, map[string]string{"note": "one"}))
	exportLBWith(t, "member-1", ns, "families", []string{"203.0.113.76", "2001:db8:1::76"}, nil)
	time.Sleep(1100 * time.Millisecond) // creation timestamps have a one-second resolution
	exportLBWith(t, "member-2", ns, "ports", []string{"203.0.113.81"}, []svcMod{withPorts(tcp("http", 80), tcp("metrics", 9090))})
	exportLBWith(t, "member-2", ns, "itp", []string{"203.0.113.82"}, nil)
	exportLBWith(t, "member-2", ns, "td", []string{"203.0.113.83"}, nil)
	exportLBWith(t, "member-2", ns, "labels", []string{"203.0.113.84"}, nil, exported(map[string]string{"team": "b", "extra": "x"}, nil))
	exportLBWith(t, "member-2", ns, "notes", []string{"203.0.113.85"}, nil, exported(nil, map[string]string{"note": "two"}))
	exportLBWith(t, "member-2", ns, "families", []string{"203.0.113.86"}, nil)

	for name, want := range map[string][2]string{
		"ports": {"True/PortConflict", `port "admin" 81/TCP is exported by member-1 but not by member-2: the import has it; ` +
			`port "metrics" 9090/TCP is exported by member-2 but not by member-1: the import has it`},
		"itp":      {"True/InternalTrafficPolicyConflict", "member-2 has internal traffic policy Cluster but member-1 (oldest export) Local, which is used"},
		"td":       {"True/TrafficDistributionConflict", "member-2 has traffic distribution unset but member-1 (oldest export) PreferClose, which is used"},
		"labels":   {"True/LabelsConflict", `extra only in member-2, team is "b" in member-2 but "a" in member-1`},
		"notes":    {"True/AnnotationsConflict", `note is "two" in member-2 but "one" in member-1`},
		"families": {"True/IPFamilyConflict", "member-2 serves IPv4 only, the other exporters also IPv6: IPv6 clients do not reach its backends"},
	} {
		for _, c := range []string{"member-1", "member-2"} {
			if msg := waitCondition(t, c, ns, name, conflict, want[0]); !strings.Contains(msg, want[1]) {
				t.Errorf("%s's export of %s: Conflict says %q, want %q", c, name, msg, want[1])
			}
		}
	}
	waitImported(t, importLimit, ns, "ports", clusters.Names, func(_ string, i imported) error {
		return checkClusterSetImport(i, "http 80/TCP,admin 81/TCP,metrics 9090/TCP", "member-1", "member-2")
	})
	waitImported(t, importLimit, ns, "itp", clusters.Names, func(_ string, i imported) error {
		if i.imp == nil || ptr.Deref(i.imp.Spec.InternalTrafficPolicy, "") != "Local" || i.derived == nil || ptr.Deref(i.derived.Spec.InternalTrafficPolicy, "") != "Local" {
			return fmt.Errorf("import and derived Service not Local")
		}
		return nil
	})
	waitImported(t, importLimit, ns, "td", clusters.Names, func(_ string, i imported) error {
		if i.imp == nil || ptr.Deref(i.imp.Spec.TrafficDistribution, "") != "PreferClose" || i.derived == nil || ptr.Deref(i.derived.Spec.TrafficDistribution, "") != "PreferClose" {
			return fmt.Errorf("import and derived Service not PreferClose")
		}
		return nil
	})
	waitImported(t, importLimit, ns, "labels", clusters.Names, func(_ string, i imported) error {
		if i.imp == nil || i.imp.Labels["team"] != "a" || i.imp.Labels["extra"] != "" {
			return fmt.Errorf("import labels %v, want member-1's set: team=a, no extra", i.imp.GetLabels())
		}
		return nil
	})
	waitImported(t, importLimit, ns, "notes", clusters.Names, func(_ string, i imported) error {
		if i.imp == nil || i.imp.Annotations["note"] != "one" {
			return fmt.Errorf("import annotations %v, want note=one", i.imp.GetAnnotations())
		}
		return nil
	})
	// A dual-stack member gives a cluster-set IP of each family; the
	// single-stack member (member-3, IPv4 only: see TestMain) gives an IPv4
	// one and its import says IPv6 clients are left out. member-1's IPv6
	// address is imported in a slice of its own.
	waitImported(t, importLimit, ns, "families", clusters.Names, func(member string, i imported) error {
		if err := checkClusterSetImport(i, "http 80/TCP", "member-1", "member-2"); err != nil {
			return err
		}
		if got := i.addressTypes(); got != "member-1=IPv4,member-1=IPv6,member-2=IPv4" {
			return fmt.Errorf("slices %s", got)
		}
		want, ready, ips := []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}, "True/Ready", 2
		if slices.Contains(singleStack, member) {
			want, ready, ips = []corev1.IPFamily{corev1.IPv4Protocol}, "False/IPFamilyNotSupported", 1
		}
		if i.ready() != ready || !slices.Equal(i.imp.Spec.IPFamilies, want) || len(i.imp.Spec.IPs) != ips {
			return fmt.Errorf("import Ready %s, families %v, IPs %v; want %s, %v, %d IPs", i.ready(), i.imp.Spec.IPFamilies, i.imp.Spec.IPs, ready, want, ips)
		}
		return nil
	})
	// member-1 drops its IPv6 address: the IPv6 slices and the conflict go.
	s := readService(t, "member-1", ns, "families")
	s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.76"}}
	if err := cl(t, "member-1").Status().Update(bg, s); err != nil {
		t.Fatal(err)
	}
	waitImported(t, importLimit, ns, "families", clusters.Names, func(_ string, i imported) error {
		if got := i.addressTypes(); got != "member-1=IPv4,member-2=IPv4" || i.ready() != "True/Ready" || len(i.imp.Spec.IPs) != 1 {
			return fmt.Errorf("slices %s, Ready %s, IPs %v: want IPv4 only", got, i.ready(), i.imp.Spec.IPs)
		}
		return nil
	})
	waitCondition(t, "member-2", ns, "families", conflict, "False/NoConflicts")
}

// TestExportedMetadataOnly: the export's exportedLabels and
// exportedAnnotations reach the import; the Service's and the export's own
// metadata do not, nor reserved keys, which the export's Valid message names.
func TestExportedMetadataOnly(t *testing.T) {
	federation(t)
	ns := sharedNamespace(t)
	exportLBWith(t, "member-2", ns, "meta", []string{"203.0.113.91"},
		[]svcMod{withMetadata(map[string]string{"svc-label": "x"}, map[string]string{"svc-note": "x"})},
		exported(map[string]string{"team": "a", "app.kubernetes.io/managed-by": "me"}, map[string]string{"note": "hello", "federation.antreaplus.io/address-types": "forged"}),
		func(e *mcsv1beta1.ServiceExport) { e.Labels = map[string]string{"export-label": "x"} })
	msg := waitCondition(t, "member-2", ns, "meta", valid, "True/Valid")
	for _, says := range []string{"label app.kubernetes.io/managed-by is reserved", "annotation federation.antreaplus.io/address-types is reserved"} {
		if !strings.Contains(msg, says) {
			t.Errorf("Valid says %q, want it to say %q", msg, says)
		}
	}
	waitImported(t, importLimit, ns, "meta", clusters.Names, func(_ string, i imported) error {
		if i.imp == nil {
			return fmt.Errorf("no import")
		}
		l, a := i.imp.Labels, i.imp.Annotations
		if l["team"] != "a" || a["note"] != "hello" || l["svc-label"] != "" || l["export-label"] != "" || a["svc-note"] != "" ||
			l["app.kubernetes.io/managed-by"] != "antreaplus-federation" || a[federationv1alpha1.AnnotationAddressTypes] != "member-2=LoadBalancer" {
			return fmt.Errorf("import labels %v annotations %v", l, a)
		}
		return nil
	})
}

// TestPreferCloseHints: NodePort exports of member-1 and member-2 whose
// Services prefer close endpoints. Sandbox nodes are in the zone named
// after their cluster, all in region "sandbox".
func TestPreferCloseHints(t *testing.T) {
	federation(t)
	ns := sharedNamespace(t)
	for _, c := range []string{"member-1", "member-2"} {
		createService(t, c, ns, "near", nodePort(), withoutSelector(), trafficDistribution("PreferClose"))
		exportService(t, c, ns, "near", false)
	}
	tagged := func(c string, zone string) []string {
		var out []string
		for _, e := range nodeEndpoints(t, c, 0) {
			out = append(out, strings.TrimSuffix(e, ":0")+">"+zone)
		}
		if len(out) == 0 {
			t.Fatalf("%s's nodes have no address", c)
		}
		return out
	}
	far := locality.FartherZone
	want := map[string]map[string][]string{
		// Each exporter's own endpoints serve it; the other's are hinted farther.
		"member-1": {"member-1": tagged("member-1", "member-1"), "member-2": tagged("member-2", far)},
		"member-2": {"member-1": tagged("member-1", far), "member-2": tagged("member-2", "member-2")},
		// member-3 has no endpoint and shares no zone: the region tier, everything.
		exporter3: {"member-1": tagged("member-1", exporter3), "member-2": tagged("member-2", exporter3)},
	}
	waitImported(t, importLimit, ns, "near", clusters.Names, func(c string, i imported) error {
		for src, w := range want[c] {
			if got := i.hints(src); !slices.Equal(got, w) {
				return fmt.Errorf("hints of %s's endpoints %v, want %v", src, got, w)
			}
			if r := i.slices[src][0].Annotations[federationv1alpha1.AnnotationSourceRegion]; r != "sandbox" {
				return fmt.Errorf("slice from %s has region %q", src, r)
			}
		}
		return nil
	})
}

// TestIPv6HeadlessOverFlatNetwork: a headless export whose Pods have IPv6
// addresses (the slice is written by the test: kwok gives Pods IPv4
// addresses only) and one with IPv4 Pods are one Headless import of both
// families, in slices of each family; each exporter serves one family only,
// which both exports report.
func TestIPv6HeadlessOverFlatNetwork(t *testing.T) {
	federation(t)
	ns := sharedNamespace(t)
	createService(t, "member-1", ns, "db", headless(), withoutSelector())
	writeSlice(t, "member-1", ns, "db", discoveryv1.AddressTypeIPv6, 5432, "fd00:101::7", "fd00:101::8")
	exportWith(t, "member-1", ns, "db", flatNetwork())
	createService(t, "member-2", ns, "db", headless())
	createPod(t, "member-2", ns, "db")
	exportWith(t, "member-2", ns, "db", flatNetwork())
	if msg := waitCondition(t, "member-1", ns, "db", ready, "True/Ready"); !strings.Contains(msg, "fd00:101::7") {
		t.Errorf("member-1's Ready says %q, want its IPv6 addresses", msg)
	}
	for _, c := range []string{"member-1", "member-2"} {
		waitCondition(t, c, ns, "db", conflict, "True/IPFamilyConflict")
	}
	waitImported(t, importLimit, ns, "db", clusters.Names, func(_ string, i imported) error {
		if i.imp == nil || i.imp.Spec.Type != "Headless" || len(i.imp.Spec.IPs) != 0 || i.derived != nil ||
			!slices.Equal(i.imp.Spec.IPFamilies, []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}) || i.ready() != "True/Ready" {
			return fmt.Errorf("import %s, Ready %s: want Headless, no IP, families IPv4,IPv6", describeImport(i), i.ready())
		}
		if got := i.addressTypes(); got != "member-1=IPv6,member-2=IPv4" {
			return fmt.Errorf("slices %s", got)
		}
		if got := i.endpoints("member-1"); !slices.Equal(got, []string{"fd00:101::7:5432", "fd00:101::8:5432"}) {
			return fmt.Errorf("member-1's endpoints %v", got)
		}
		return nil
	})
}

// describeImport says what a member imports of a name: "none" when it holds
// no ServiceImport.
func describeImport(i imported) string {
	if i.imp == nil {
		return "none"
	}
	return fmt.Sprintf("%s (type %s, IPs %v, families %v)", i.imp.Name, i.imp.Spec.Type, i.imp.Spec.IPs, i.imp.Spec.IPFamilies)
}
