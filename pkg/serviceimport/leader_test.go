package serviceimport

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/leadertest"
)

const ns = "shop"

var bg = context.Background()

// exportLB creates, in a cluster, a LoadBalancer Service with an ingress IP and its export.
func exportLB(t *testing.T, c client.Client, name, ip string) {
	t.Helper()
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}}}
	if err := c.Create(bg, s); err != nil {
		t.Fatal(err)
	}
	s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
	if err := c.Status().Update(bg, s); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(bg, &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}); err != nil {
		t.Fatal(err)
	}
}

// imported describes what c imported of name: "" when nothing, else
// "<exporters>: <source>=<endpoints> ..." .
func imported(t *testing.T, c client.Client, name string) string {
	t.Helper()
	imp := &mcsv1beta1.ServiceImport{}
	if err := c.Get(bg, client.ObjectKey{Namespace: ns, Name: name}, imp); err != nil {
		imp = nil
	}
	slices := &discoveryv1.EndpointSliceList{}
	if err := c.List(bg, slices, client.InNamespace(ns), client.MatchingLabels{mcsv1beta1.LabelServiceName: name}); err != nil {
		t.Fatal(err)
	}
	if imp == nil && len(slices.Items) == 0 {
		return ""
	}
	var parts []string
	if imp != nil {
		var exporters []string
		for _, c := range imp.Status.Clusters {
			exporters = append(exporters, c.Cluster)
		}
		parts = append(parts, strings.Join(exporters, ",")+":")
	}
	for _, s := range slices.Items {
		var eps []string
		for _, e := range s.Endpoints {
			eps = append(eps, e.Addresses[0])
		}
		parts = append(parts, s.Labels[mcsv1beta1.LabelSourceCluster]+"="+strings.Join(eps, ","))
	}
	return strings.Join(parts, " ")
}

func waitImported(t *testing.T, c client.Client, name, want string) {
	t.Helper()
	framework.Eventually(t, 20*time.Second, func() error {
		if got := imported(t, c, name); got != want {
			return fmt.Errorf("%s imported as %q, want %q", name, got, want)
		}
		return nil
	})
}

// stays checks that name's import does not change for d.
func stays(t *testing.T, c client.Client, name, want string, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if got := imported(t, c, name); got != want {
			t.Fatalf("%s imported as %q, want it kept as %q", name, got, want)
		}
	}
}

// TestWithdrawOnlyWhatIsKnownGone runs the leader of member-1 with
// member-2 as a source whose state the test sets: readable, not readable
// (a new leader without its informers), gone from the view but still
// registered, unreachable past the grace, and gone from the registry.
func TestWithdrawOnlyWhatIsKnownGone(t *testing.T) {
	a, b := clusters.Client(t, "member-1"), clusters.Client(t, "member-2")
	for _, c := range []client.Client{a, b} {
		if err := c.Create(bg, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	exportLB(t, b, "web", "203.0.113.2")
	ca, cb := leadertest.Cluster(t, clusters, "member-1", true), leadertest.Cluster(t, clusters, "member-2", true)
	view := leadertest.NewView(
		manager.MemberInfo{ClusterID: "member-1", Cluster: ca, Reachable: true},
		manager.MemberInfo{ClusterID: "member-2", Cluster: cb, Reachable: true})
	registry := leadertest.NewRegistry("member-1", "member-2")
	c := New(registry, "antreaplus-system")
	c.Resync = time.Second
	leadertest.Lead(t, c, "member-1", ca, view)
	const live = "member-2: member-2=203.0.113.2"
	waitImported(t, a, "web", live)

	// Steady state: a resync every second, and no write.
	time.Sleep(time.Second)
	before := testutil.ToFloat64(metrics.Writes.WithLabelValues("member-1", "EndpointSlice", "update")) + testutil.ToFloat64(metrics.Writes.WithLabelValues("member-1", "ServiceImport", "update"))
	time.Sleep(3 * time.Second)
	after := testutil.ToFloat64(metrics.Writes.WithLabelValues("member-1", "EndpointSlice", "update")) + testutil.ToFloat64(metrics.Writes.WithLabelValues("member-1", "ServiceImport", "update"))
	if after != before {
		t.Errorf("%v updates in a steady state over three resyncs", after-before)
	}

	// Someone deletes an imported slice: it is back at once.
	slices := &discoveryv1.EndpointSliceList{}
	if err := a.List(bg, slices, client.InNamespace(ns), client.MatchingLabels{mcsv1beta1.LabelServiceName: "web"}); err != nil || len(slices.Items) != 1 {
		t.Fatalf("%d slices of web, err %v", len(slices.Items), err)
	}
	if err := a.Delete(bg, &slices.Items[0]); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 5*time.Second, func() error {
		s := &discoveryv1.EndpointSlice{}
		if err := a.Get(bg, client.ObjectKeyFromObject(&slices.Items[0]), s); err != nil {
			return err
		}
		if s.UID == slices.Items[0].UID {
			return fmt.Errorf("slice %s not recreated yet", s.Name)
		}
		return nil
	})

	// member-2 cannot be read (its informers never synced here): its export
	// goes meanwhile, yet what it exported stays.
	view.Set(manager.MemberInfo{ClusterID: "member-2", Cluster: leadertest.Cluster(t, clusters, "member-2", false)})
	time.Sleep(2 * time.Second)
	if err := b.Delete(bg, &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}); err != nil {
		t.Fatal(err)
	}
	stays(t, a, "web", live, 4*time.Second)

	// member-2 is missing from this manager's view but still registered: kept.
	view.Remove("member-2")
	stays(t, a, "web", live, 4*time.Second)

	// Readable again: its export is gone, so is the import.
	view.Set(manager.MemberInfo{ClusterID: "member-2", Cluster: cb, Reachable: true})
	waitImported(t, a, "web", "")

	// Unreachable past the grace: withdrawn although its last state is readable.
	exportLB(t, b, "api", "203.0.113.3")
	waitImported(t, a, "api", "member-2: member-2=203.0.113.3")
	since := time.Now().Add(-time.Minute)
	view.Set(manager.MemberInfo{ClusterID: "member-2", Cluster: cb, UnreachableSince: &since})
	waitImported(t, a, "api", "")
	view.Set(manager.MemberInfo{ClusterID: "member-2", Cluster: cb, Reachable: true})
	waitImported(t, a, "api", "member-2: member-2=203.0.113.3")

	// Gone from the view and from the registry: it left the federation.
	view.Remove("member-2")
	stays(t, a, "api", "member-2: member-2=203.0.113.3", 2*time.Second)
	registry.SetPresent("member-2", false)
	waitImported(t, a, "api", "")
}
