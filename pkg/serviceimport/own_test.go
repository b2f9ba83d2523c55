package serviceimport

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/serviceexport"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/leadertest"
)

// TestOwnObjectsInTheLeadersCacheAlone: the derived Service and imported
// slice the leader writes into member-1 are not in member-1's cache (which
// every supervisor holds as a source), only in the leader's own cache;
// deleted by someone, each is written again from that cache's events (the
// resync is an hour away); and a derived name taken by a Service the
// federation does not manage leaves that Service alone, the import without
// a cluster-set IP.
func TestOwnObjectsInTheLeadersCacheAlone(t *testing.T) {
	const ns = "own"
	a, b := clusters.Client(t, "member-1"), clusters.Client(t, "member-2")
	for _, c := range []client.Client{a, b} {
		if err := c.Create(bg, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	// The derived name of db is a Service of someone else's.
	taken := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: serviceexport.DerivedServiceName("db")},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "db"}, Ports: []corev1.ServicePort{{Name: "sql", Port: 5432, Protocol: corev1.ProtocolTCP}}}}
	if err := a.Create(bg, taken); err != nil {
		t.Fatal(err)
	}
	exportService(t, b, ns, "web", []string{"203.0.113.7"}, nil)
	exportService(t, b, ns, "db", []string{"203.0.113.8"}, nil)
	ca, cb := leadertest.Cluster(t, clusters, "member-1", true), leadertest.Cluster(t, clusters, "member-2", true)
	view := leadertest.NewView(
		manager.MemberInfo{ClusterID: "member-1", Cluster: ca, Reachable: true},
		manager.MemberInfo{ClusterID: "member-2", Cluster: cb, Reachable: true})
	c := New(leadertest.NewRegistry("member-1", "member-2"), "antreaplus-system")
	c.Resync = time.Hour
	leadertest.Lead(t, c, "member-1", ca, view)

	derived := &corev1.Service{}
	slice := &discoveryv1.EndpointSlice{}
	framework.Eventually(t, 30*time.Second, func() error {
		if err := a.Get(bg, types.NamespacedName{Namespace: ns, Name: serviceexport.DerivedServiceName("web")}, derived); err != nil {
			return err
		}
		slices := &discoveryv1.EndpointSliceList{}
		if err := a.List(bg, slices, client.InNamespace(ns), client.MatchingLabels{mcsv1beta1.LabelServiceName: "web"}); err != nil {
			return err
		}
		if len(slices.Items) != 1 {
			return fmt.Errorf("%d imported slices of web, want 1", len(slices.Items))
		}
		*slice = slices.Items[0]
		return nil
	})

	// member-1's cache, the one every supervisor holds, has neither.
	svcs := &corev1.ServiceList{}
	if err := ca.GetCache().List(bg, svcs, client.InNamespace(ns), client.MatchingLabels{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation}); err != nil {
		t.Fatal(err)
	}
	cached := &discoveryv1.EndpointSliceList{}
	if err := ca.GetCache().List(bg, cached, client.InNamespace(ns), client.MatchingLabels{discoveryv1.LabelManagedBy: federationv1alpha1.EndpointSliceManagedBy}); err != nil {
		t.Fatal(err)
	}
	if len(svcs.Items)+len(cached.Items) != 0 {
		t.Errorf("member-1's cache holds %d of the federation's Services and %d of its slices, want none", len(svcs.Items), len(cached.Items))
	}

	// Deleted by someone: written again at once, not at the next resync.
	for _, o := range []client.Object{derived, slice} {
		if err := a.Delete(bg, o); err != nil {
			t.Fatal(err)
		}
	}
	framework.Eventually(t, 15*time.Second, func() error {
		for _, o := range []client.Object{derived.DeepCopy(), slice.DeepCopy()} {
			uid := o.GetUID()
			if err := a.Get(bg, client.ObjectKeyFromObject(o), o); err != nil {
				return fmt.Errorf("%T %s not written again yet: %w", o, o.GetName(), err)
			}
			if o.GetUID() == uid {
				return fmt.Errorf("%T %s not deleted yet", o, o.GetName())
			}
		}
		return nil
	})

	// The taken name: db is imported without a cluster-set IP, and the
	// other Service is left as it was.
	framework.Eventually(t, 30*time.Second, func() error {
		imp := &mcsv1beta1.ServiceImport{}
		if err := a.Get(bg, types.NamespacedName{Namespace: ns, Name: "db"}, imp); err != nil {
			return err
		}
		if len(imp.Status.Clusters) == 0 {
			return fmt.Errorf("import of db without its exporter yet")
		}
		if len(imp.Spec.IPs) != 0 {
			return fmt.Errorf("import of db has the cluster-set IPs %v, want none (its derived name is taken)", imp.Spec.IPs)
		}
		return nil
	})
	got := &corev1.Service{}
	if err := a.Get(bg, client.ObjectKeyFromObject(taken), got); err != nil {
		t.Fatal(err)
	}
	if got.UID != taken.UID || got.Labels[federationv1alpha1.LabelManagedBy] != "" || got.Spec.Selector["app"] != "db" {
		t.Errorf("the Service %s of someone else's was changed: %+v", got.Name, got.ObjectMeta)
	}
}
