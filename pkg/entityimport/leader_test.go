package entityimport

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/leadertest"
)

var (
	web = map[string]string{"cloud.antreaplus.io/kind": "VirtualMachine", "tag.cloud.antreaplus.io/role": "web"}
	db  = map[string]string{"cloud.antreaplus.io/kind": "VirtualMachine", "tag.cloud.antreaplus.io/role": "db"}
)

// setup connects to both clusters and returns a view where both are
// readable (member-1 labelled), and a registry holding both.
func setup(t *testing.T) (ca, cb cluster.Cluster, view *leadertest.View, registry *leadertest.Registry) {
	t.Helper()
	ca, cb = leadertest.Cluster(t, clusters, "member-1", true), leadertest.Cluster(t, clusters, "member-2", true)
	view = leadertest.NewView(
		manager.MemberInfo{ClusterID: "member-1", Cluster: ca, Reachable: true, Labels: member1Labels},
		manager.MemberInfo{ClusterID: "member-2", Cluster: cb, Reachable: true})
	registry = leadertest.NewRegistry("member-1", "member-2")
	return ca, cb, view, registry
}

// member1Labels are member-1's registry labels, as the federation view
// carries them.
var member1Labels = map[string]string{"region": "eu", "topology.kubernetes.io/zone": "eu-1a",
	federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation}

// newController is the controller with a resync of a second.
func newController(registry client.Reader) *Controller {
	c := New(registry, federationv1alpha1.SystemNamespace)
	c.Resync = time.Second
	return c
}

func writesTo(member string) float64 {
	n := 0.0
	for _, verb := range []string{"create", "update", "delete"} {
		n += testutil.ToFloat64(metrics.Writes.WithLabelValues(member, kindRemoteEntity, verb))
	}
	return n
}

// TestImportFollowsExports exports entities of member-1 and follows them
// into member-2, led here: labels, Namespace sameness, an IP change, an
// entity that stops matching, a new Namespace, a terminated VM, an unexport.
func TestImportFollowsExports(t *testing.T) {
	a, b := clusters.Client(t, "member-1"), clusters.Client(t, "member-2")
	shop := sharedNamespace(t, "shop", "member-1", "member-2")
	later := sharedNamespace(t, "later", "member-1")
	spoofed := maps.Clone(web)
	spoofed[federationv1alpha1.LabelSourceCluster] = "member-9"
	spoofed["member.federation.antreaplus.io/region"] = "us"
	nicA := createEntity(t, a, shop, "nic-a", spoofed, "10.0.0.1")
	createEntity(t, a, shop, "nic-b", web, "10.0.0.2")
	createEntity(t, a, shop, "nic-db", db, "10.0.0.3")
	createExport(t, a, shop, "web-vms", map[string]string{"tag.cloud.antreaplus.io/role": "web"})
	createExport(t, a, shop, "vms", map[string]string{"cloud.antreaplus.io/kind": "VirtualMachine", "tag.cloud.antreaplus.io/role": "web"})
	createEntity(t, a, later, "nic-l", web, "10.0.1.1")
	laterExport := createExport(t, a, later, "all", nil)
	// member-2's own export is not imported into itself.
	createEntity(t, b, shop, "nic-own", web, "10.0.2.1")
	createExport(t, b, shop, "own", nil)

	_, cb, view, registry := setup(t)
	leadertest.Lead(t, newController(registry), "member-2", cb, view)
	waitRemote(t, b, shop, "member-1.nic-a=10.0.0.1 member-1.nic-b=10.0.0.2")

	got := &federationv1alpha1.RemoteEntity{}
	if err := b.Get(bg, client.ObjectKey{Namespace: shop, Name: "member-1.nic-a"}, got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"cloud.antreaplus.io/kind": "VirtualMachine", "tag.cloud.antreaplus.io/role": "web",
		federationv1alpha1.LabelSourceCluster:    "member-1",
		"member.federation.antreaplus.io/region": "eu", "member.federation.antreaplus.io/zone": "eu-1a",
		federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation,
	}
	if !maps.Equal(got.Labels, want) {
		t.Errorf("labels of member-1.nic-a:\n %v\nwant (spoofed source labels dropped)\n %v", got.Labels, want)
	}
	if got.Spec.SourceCluster != "member-1" || got.Spec.SourceName != "nic-a" || got.Spec.Kind != "VirtualMachine" ||
		len(got.Spec.Ports) != 1 || got.Spec.Ports[0].Port != 443 || got.Annotations[federationv1alpha1.AnnotationLeaderTerm] == "" {
		t.Errorf("member-1.nic-a = %+v %v", got.Spec, got.Annotations)
	}

	// Steady state: a resync every second, and no write.
	time.Sleep(time.Second)
	before := writesTo("member-2")
	time.Sleep(3 * time.Second)
	if n := writesTo("member-2") - before; n != 0 {
		t.Errorf("%v writes in a steady state over three resyncs", n)
	}

	// The VM's IP changes.
	framework.Update(t, a, nicA, func() { nicA.Spec.Endpoints[0].IP = "10.0.0.11" })
	waitRemote(t, b, shop, "member-1.nic-a=10.0.0.11 member-1.nic-b=10.0.0.2")

	// nic-b stops matching; nic-db starts.
	for name, labels := range map[string]map[string]string{"nic-b": db, "nic-db": web} {
		e := &antreav1alpha2.ExternalEntity{}
		if err := a.Get(bg, client.ObjectKey{Namespace: shop, Name: name}, e); err != nil {
			t.Fatal(err)
		}
		framework.Update(t, a, e, func() { e.Labels = labels })
	}
	waitRemote(t, b, shop, "member-1.nic-a=10.0.0.11 member-1.nic-db=10.0.0.3")

	// Nothing for a Namespace member-2 does not have, until it is created.
	all := &federationv1alpha1.RemoteEntityList{}
	if err := b.List(bg, all); err != nil {
		t.Fatal(err)
	}
	for _, r := range all.Items {
		if r.Namespace == later || r.Spec.SourceCluster == "member-2" {
			t.Errorf("unexpected RemoteEntity %s/%s from %s", r.Namespace, r.Name, r.Spec.SourceCluster)
		}
	}
	createNamespace(t, "member-2", later)
	waitRemote(t, b, later, "member-1.nic-l=10.0.1.1")

	// The VM is terminated; the other Namespace is unexported.
	if err := a.Delete(bg, nicA); err != nil {
		t.Fatal(err)
	}
	waitRemote(t, b, shop, "member-1.nic-db=10.0.0.3")
	if err := a.Delete(bg, laterExport); err != nil {
		t.Fatal(err)
	}
	waitRemote(t, b, later, "")

	// Someone deletes a RemoteEntity: it is back at once.
	db1 := &federationv1alpha1.RemoteEntity{}
	if err := b.Get(bg, client.ObjectKey{Namespace: shop, Name: "member-1.nic-db"}, db1); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(bg, db1); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 5*time.Second, func() error {
		again := &federationv1alpha1.RemoteEntity{}
		if err := b.Get(bg, client.ObjectKeyFromObject(db1), again); err != nil {
			return err
		}
		if again.UID == db1.UID {
			return fmt.Errorf("%s not recreated yet", db1.Name)
		}
		return nil
	})
}

// TestWithdrawOnlyWhatIsKnownGone makes member-1 unreadable (a new leader
// without its informers), missing from the view but registered,
// unreachable, and gone from the registry.
func TestWithdrawOnlyWhatIsKnownGone(t *testing.T) {
	a, b := clusters.Client(t, "member-1"), clusters.Client(t, "member-2")
	ns := sharedNamespace(t, "kept", "member-1", "member-2")
	nic := createEntity(t, a, ns, "nic-a", web, "10.0.0.1")
	exp := createExport(t, a, ns, "web", nil)
	ca, cb, view, registry := setup(t)
	c := newController(registry)
	c.UnreachableHoldDown = 4 * time.Second
	leadertest.Lead(t, c, "member-2", cb, view)
	const imported = "member-1.nic-a=10.0.0.1"
	waitRemote(t, b, ns, imported)

	// member-1 cannot be read: its entity changes and its export goes
	// meanwhile, yet what it exported stays exactly as it was.
	view.Set(manager.MemberInfo{ClusterID: "member-1", Cluster: leadertest.Cluster(t, clusters, "member-1", false), Labels: member1Labels})
	time.Sleep(2 * time.Second)
	framework.Update(t, a, nic, func() { nic.Spec.Endpoints[0].IP = "10.0.0.2" })
	if err := a.Delete(bg, exp); err != nil {
		t.Fatal(err)
	}
	stays(t, b, ns, imported, 4*time.Second)

	// Missing from this manager's view but still registered: kept.
	view.Remove("member-1")
	stays(t, b, ns, imported, 3*time.Second)

	// Readable again: its export is gone, so are its entities.
	view.Set(manager.MemberInfo{ClusterID: "member-1", Cluster: ca, Reachable: true, Labels: member1Labels})
	waitRemote(t, b, ns, "")
	createExport(t, a, ns, "web", nil)
	waitRemote(t, b, ns, "member-1.nic-a=10.0.0.2")

	// Unreachable past the grace: kept for the hold-down, then withdrawn,
	// although its informers are synced.
	since := time.Now().Add(-time.Minute)
	view.Set(manager.MemberInfo{ClusterID: "member-1", Cluster: ca, UnreachableSince: &since, Labels: member1Labels})
	stays(t, b, ns, "member-1.nic-a=10.0.0.2", 2*time.Second)
	waitRemote(t, b, ns, "")
	view.Set(manager.MemberInfo{ClusterID: "member-1", Cluster: ca, Reachable: true, Labels: member1Labels})
	waitRemote(t, b, ns, "member-1.nic-a=10.0.0.2")

	// Gone from the view and from the registry: it left the federation.
	view.Remove("member-1")
	stays(t, b, ns, "member-1.nic-a=10.0.0.2", 2*time.Second)
	registry.SetPresent("member-1", false)
	waitRemote(t, b, ns, "")
}

// TestFencedWritesAreRefused runs the controller with a fence that never
// allows a write: nothing is written, every write is counted as fenced.
func TestFencedWritesAreRefused(t *testing.T) {
	a, b := clusters.Client(t, "member-1"), clusters.Client(t, "member-2")
	ns := sharedNamespace(t, "fenced", "member-1", "member-2")
	createEntity(t, a, ns, "nic-a", web, "10.0.0.1")
	createExport(t, a, ns, "web", nil)
	_, cb, view, registry := setup(t)
	fenced := testutil.ToFloat64(metrics.Fenced.WithLabelValues("member-2"))
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error, 1)
	go func() {
		done <- newController(registry).Run(ctx, manager.Member{ClusterID: "member-2", Leader: leadertest.Supervisor, Cluster: cb,
			Fence: leadertest.NotLeading("member-2"), Federation: view})
	}()
	framework.Eventually(t, 20*time.Second, func() error {
		if testutil.ToFloat64(metrics.Fenced.WithLabelValues("member-2")) == fenced {
			return fmt.Errorf("no fenced write yet")
		}
		return nil
	})
	stays(t, b, ns, "", 2*time.Second)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// TestNewLeaderRewritesNothing stops a leader and starts another: the new
// one reads everything and writes nothing that is already right.
func TestNewLeaderRewritesNothing(t *testing.T) {
	a, b := clusters.Client(t, "member-1"), clusters.Client(t, "member-2")
	ns := sharedNamespace(t, "failover", "member-1", "member-2")
	for i := range 5 {
		createEntity(t, a, ns, fmt.Sprintf("nic-%d", i), web, fmt.Sprintf("10.0.0.%d", i+1))
	}
	createExport(t, a, ns, "web", nil)
	_, cb, view, registry := setup(t)
	stop := leadertest.Lead(t, newController(registry), "member-2", cb, view)
	const want = "member-1.nic-0=10.0.0.1 member-1.nic-1=10.0.0.2 member-1.nic-2=10.0.0.3 member-1.nic-3=10.0.0.4 member-1.nic-4=10.0.0.5"
	waitRemote(t, b, ns, want)
	stop()

	before, ok := writesTo("member-2"), testutil.ToFloat64(metrics.Reconciles.WithLabelValues("member-2", "ok"))
	leadertest.Lead(t, newController(registry), "member-2", cb, view)
	framework.Eventually(t, 20*time.Second, func() error {
		// The first pass and three resyncs.
		if n := testutil.ToFloat64(metrics.Reconciles.WithLabelValues("member-2", "ok")) - ok; n < 4 {
			return fmt.Errorf("%v reconciles by the new leader", n)
		}
		return nil
	})
	if n := writesTo("member-2") - before; n != 0 {
		t.Errorf("the new leader made %v writes, want none", n)
	}
	stays(t, b, ns, want, time.Second)
}
