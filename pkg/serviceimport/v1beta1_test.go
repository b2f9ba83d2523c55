package serviceimport

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/serviceexport/locality"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/leadertest"
)

// leadBoth runs a leader for member-1 and one for member-2, each reading
// both: every export gets its Conflict condition from its member's leader.
func leadBoth(t *testing.T) (a, b client.Client) {
	t.Helper()
	a, b = clusters.Client(t, "member-1"), clusters.Client(t, "member-2")
	ca, cb := leadertest.Cluster(t, clusters, "member-1", true), leadertest.Cluster(t, clusters, "member-2", true)
	view := leadertest.NewView(
		manager.MemberInfo{ClusterID: "member-1", Cluster: ca, Reachable: true},
		manager.MemberInfo{ClusterID: "member-2", Cluster: cb, Reachable: true})
	registry := leadertest.NewRegistry("member-1", "member-2")
	for id, led := range map[string]cluster.Cluster{"member-1": ca, "member-2": cb} {
		c := New(registry, "antreaplus-system")
		c.Resync = time.Second
		leadertest.Lead(t, c, id, led, view)
	}
	return a, b
}

// TestV1beta1ImportAndConflicts exports names from both members, member-1
// a second earlier (its exports are the oldest), each differing in one
// property, and checks the imports and the Conflict of both exports.
func TestV1beta1ImportAndConflicts(t *testing.T) {
	const ns = "mcs"
	a, b := leadBoth(t)
	for _, c := range []client.Client{a, b} {
		if err := c.Create(bg, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	exportService(t, a, ns, "ports", []string{"203.0.113.21"}, []svcMod{ports(tcpPort("http", 80), tcpPort("admin", 81))})
	exportService(t, a, ns, "itp", []string{"203.0.113.22"}, []svcMod{itp(corev1.ServiceInternalTrafficPolicyLocal)})
	exportService(t, a, ns, "td", nil, []svcMod{nodePortType(), td("PreferClose")})
	exportService(t, a, ns, "meta", []string{"203.0.113.24"}, []svcMod{serviceLabels("svc-own", "x")},
		exportedLabels("team", "a", "app.kubernetes.io/managed-by", "me"), exportedAnnotations("note", "one"), exportLabels("export-own", "x"))
	fam := exportService(t, a, ns, "families", []string{"fd00:1::25"}, nil)
	time.Sleep(1100 * time.Millisecond) // creation timestamps have a one-second resolution
	exportService(t, b, ns, "ports", []string{"203.0.113.31"}, nil)
	exportService(t, b, ns, "itp", []string{"203.0.113.32"}, nil)
	exportService(t, b, ns, "td", nil, []svcMod{nodePortType()})
	exportService(t, b, ns, "meta", []string{"203.0.113.34"}, nil, exportedLabels("team", "b", "extra", "y"), exportedAnnotations("note", "two"))
	exportService(t, b, ns, "families", []string{"203.0.113.35"}, nil)
	exportService(t, b, ns, "v6only", []string{"fd00:2::36"}, nil)

	conflicts := map[string]string{
		"ports": `True/PortConflict|port "admin" 81/TCP is exported by member-1 but not by member-2: the import has it`,
		"itp":   "True/InternalTrafficPolicyConflict|member-2 has internal traffic policy Cluster but member-1 (oldest export) Local, which is used",
		"td":    "True/TrafficDistributionConflict|member-2 has traffic distribution unset but member-1 (oldest export) PreferClose, which is used",
		"meta": `True/LabelsConflict,AnnotationsConflict|the exported labels of member-2 differ from those of member-1 (oldest export), which are used: ` +
			`extra only in member-2, team is "b" in member-2 but "a" in member-1; the exported annotations of member-2 differ from those of member-1 (oldest export), ` +
			`which are used: note is "two" in member-2 but "one" in member-1`,
		"families": "True/IPFamilyConflict|",
		"v6only":   "False/NoConflicts|",
	}
	for name, want := range conflicts {
		status, msg, _ := strings.Cut(want, "|")
		for id, c := range map[string]client.Client{"member-1": a, "member-2": b} {
			if name == "v6only" && id == "member-1" {
				continue
			}
			framework.Eventually(t, 20*time.Second, func() error {
				if got, gotMsg := exportCondition(c, ns, name, mcsv1beta1.ServiceExportConditionConflict); got != status || !strings.Contains(gotMsg, msg) {
					return fmt.Errorf("%s's export of %s: Conflict %s %q, want %s %q", id, name, got, gotMsg, status, msg)
				}
				return nil
			})
		}
	}
	for id, c := range map[string]client.Client{"member-1": a, "member-2": b} {
		framework.Eventually(t, 20*time.Second, func() error { return checkImports(t, c, id, ns) })
	}

	// Steady state: nothing is written over three resyncs, status included.
	time.Sleep(time.Second)
	before := totalWrites(t)
	time.Sleep(3 * time.Second)
	if after := totalWrites(t); after != before {
		t.Errorf("%v writes in a steady state over three resyncs", after-before)
	}

	// member-1's export of families goes IPv4: its IPv6 slices go, so does the conflict.
	setIngress(t, a, fam, "203.0.113.25")
	for id, c := range map[string]client.Client{"member-1": a, "member-2": b} {
		framework.Eventually(t, 20*time.Second, func() error {
			if got, msg := exportCondition(c, ns, "families", mcsv1beta1.ServiceExportConditionConflict); got != "False/NoConflicts" {
				return fmt.Errorf("%s: Conflict %s %s", id, got, msg)
			}
			imp, _, slices := readImport(t, c, ns, "families")
			if types := addressTypes(slices); types != "member-1=IPv4,member-2=IPv4" || imp == nil || !readyIs(imp, "True/Ready") {
				return fmt.Errorf("%s: slices %s, import ready %v", id, types, imp != nil && readyIs(imp, "True/Ready"))
			}
			return nil
		})
	}
}

// checkImports checks what a member imported of each name of the test.
func checkImports(t *testing.T, c client.Client, id, ns string) error {
	t.Helper()
	imp, svc, _ := readImport(t, c, ns, "ports")
	if imp == nil || portNames(imp) != "http,admin" || svc == nil || len(svc.Spec.Ports) != 2 {
		return fmt.Errorf("ports: import %v derived %v, want the union http,admin", imp != nil && portNames(imp) != "", svc != nil)
	}
	if imp, svc, _ = readImport(t, c, ns, "itp"); imp == nil || ptr.Deref(imp.Spec.InternalTrafficPolicy, "") != "Local" || svc == nil ||
		ptr.Deref(svc.Spec.InternalTrafficPolicy, "") != "Local" {
		return fmt.Errorf("itp: import and derived Service not Local")
	}
	imp, svc, sl := readImport(t, c, ns, "td")
	if imp == nil || ptr.Deref(imp.Spec.TrafficDistribution, "") != "PreferClose" || svc == nil ||
		ptr.Deref(svc.Spec.TrafficDistribution, "") != "PreferClose" {
		return fmt.Errorf("td: import and derived Service not PreferClose")
	}
	// Sandbox nodes are in the zone named after their cluster: each member's
	// own endpoints serve its zone, the other member's are hinted farther.
	for _, s := range sl {
		want := locality.FartherZone
		if s.Labels[mcsv1beta1.LabelSourceCluster] == id {
			want = id
		}
		for _, e := range s.Endpoints {
			if e.Hints == nil || len(e.Hints.ForZones) != 1 || e.Hints.ForZones[0].Name != want {
				return fmt.Errorf("td: endpoint %s from %s has hints %v, want %s", e.Addresses[0], s.Labels[mcsv1beta1.LabelSourceCluster], e.Hints, want)
			}
		}
		if s.Annotations[federationv1alpha1.AnnotationSourceRegion] != "sandbox" {
			return fmt.Errorf("td: slice %s has no source region", s.Name)
		}
		// The exporter's nodes are all in its own zone.
		if src := s.Labels[mcsv1beta1.LabelSourceCluster]; s.Annotations[federationv1alpha1.AnnotationSourceZones] != src {
			return fmt.Errorf("td: slice %s has source zones %q, want %s", s.Name, s.Annotations[federationv1alpha1.AnnotationSourceZones], src)
		}
	}
	if imp, _, _ = readImport(t, c, ns, "meta"); imp == nil || imp.Labels["team"] != "a" || imp.Labels["extra"] != "" || imp.Annotations["note"] != "one" ||
		imp.Labels["svc-own"] != "" || imp.Labels["export-own"] != "" || imp.Labels["app.kubernetes.io/managed-by"] != "antreaplus-federation" {
		return fmt.Errorf("meta: import labels %v annotations %v", imp.GetLabels(), imp.GetAnnotations())
	}
	imp, _, sl = readImport(t, c, ns, "families")
	if imp == nil || addressTypes(sl) != "member-1=IPv6,member-2=IPv4" || !slices.Equal(imp.Spec.IPFamilies, []corev1.IPFamily{corev1.IPv4Protocol}) ||
		!readyIs(imp, "False/IPFamilyNotSupported") || imp.Status.EndpointSliceObjects != mcsv1beta1.EndpointSliceObjectsPresent {
		return fmt.Errorf("families: slices %s, import %+v", addressTypes(sl), imp.GetName())
	}
	// A single-stack IPv4 member cannot give an IPv6 cluster-set IP.
	if imp, _, _ = readImport(t, c, ns, "v6only"); imp == nil || len(imp.Spec.IPs) != 0 || !readyIs(imp, "False/IPFamilyNotSupported") ||
		!strings.Contains(meta.FindStatusCondition(imp.Status.Conditions, "Ready").Message, "not configured") {
		return fmt.Errorf("v6only: import %v without IP and IPFamilyNotSupported expected", imp != nil)
	}
	return nil
}

func readyIs(imp *mcsv1beta1.ServiceImport, want string) bool {
	c := meta.FindStatusCondition(imp.Status.Conditions, string(mcsv1beta1.ServiceImportConditionReady))
	return c != nil && string(c.Status)+"/"+c.Reason == want && c.ObservedGeneration == imp.Generation
}

func portNames(imp *mcsv1beta1.ServiceImport) string {
	var out []string
	for _, p := range imp.Spec.Ports {
		out = append(out, p.Name)
	}
	return strings.Join(out, ",")
}

// addressTypes is "source=type,..." of slices, sorted.
func addressTypes(sl []discoveryv1.EndpointSlice) string {
	var out []string
	for _, s := range sl {
		out = append(out, s.Labels[mcsv1beta1.LabelSourceCluster]+"="+string(s.AddressType))
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// totalWrites sums every write the leaders made, of every kind and verb.
func totalWrites(t *testing.T) float64 {
	t.Helper()
	ch := make(chan prometheus.Metric, 1000)
	metrics.Writes.Collect(ch)
	close(ch)
	sum := 0.0
	for m := range ch {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			t.Fatal(err)
		}
		sum += d.GetCounter().GetValue()
	}
	return sum
}
