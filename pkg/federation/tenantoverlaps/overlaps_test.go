package tenantoverlaps

import (
	"context"
	"fmt"
	"io"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/leadertest"
)

const (
	member1 = "member-1"
	member2 = "member-2"
	holder1 = "shared/cloud-controller-0"
	holder2 = "eu/cloud-controller-1"
)

// TestOverlapsReportedInBothMembers claims t1 in both members, t2 in
// member-1 only, and t3 in member-1 and (expired) in member-2: each
// member's ConfigMap names the other for t1 only, with an Event on each
// claim; once member-2's claim expires, the overlap is gone from both.
func TestOverlapsReportedInBothMembers(t *testing.T) {
	federate(t)
	a, b := clusters.Client(t, member1), clusters.Client(t, member2)
	now := time.Now()
	t1InA := claim(t, a, "t1", holder1, now, time.Hour)
	claim(t, a, "t2", holder1, now, time.Hour)
	claim(t, a, "t3", holder1, now, time.Hour)
	t1InB := claim(t, b, "t1", holder2, now, time.Hour)
	claim(t, b, "t3", holder2, now.Add(-time.Hour), 15*time.Second)
	for _, c := range []client.Client{a, b} {
		t.Cleanup(func() { deleteOverlaps(t, c) }) // once the manager has stopped
	}

	start := time.Now()
	runManager(t)
	waitOverlaps(t, a, map[string]string{"t1": `[{"member":"member-2","holder":"` + holder2 + `"}]`})
	waitOverlaps(t, b, map[string]string{"t1": `[{"member":"member-1","holder":"` + holder1 + `"}]`})
	t.Logf("both members reported within %s of the manager's start", time.Since(start).Round(100*time.Millisecond))
	for _, c := range []struct {
		cl            client.Client
		member, other string
		holder        string
		claim         *coordinationv1.Lease
	}{{a, member1, member2, holder2, t1InA}, {b, member2, member1, holder1, t1InB}} {
		waitEvent(t, c.cl, c.claim, c.member, c.other, c.holder)
		if n := testutil.ToFloat64(overlapsGauge.WithLabelValues(c.member)); n != 1 {
			t.Errorf("antreaplus_federation_tenant_overlaps{member=%s} = %v, want 1", c.member, n)
		}
		cm := &corev1.ConfigMap{}
		if err := c.cl.Get(t.Context(), configMapKey(), cm); err != nil {
			t.Fatal(err)
		}
		if cm.Labels[federationv1alpha1.LabelManagedBy] != federationv1alpha1.ManagedByFederation || cm.Annotations[federationv1alpha1.AnnotationLeaderTerm] == "" {
			t.Errorf("ConfigMap of %s: labels %v, annotations %v; want managed by the federation, with the leader term", c.member, cm.Labels, cm.Annotations)
		}
	}

	// Steady state: claims renewed, several resyncs, no write.
	before := writesTo(member1) + writesTo(member2)
	for range 3 {
		time.Sleep(700 * time.Millisecond)
		framework.Update(t, b, t1InB, func() { t1InB.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()} })
	}
	if n := writesTo(member1) + writesTo(member2) - before; n != 0 {
		t.Errorf("%v writes in a steady state", n)
	}

	// Someone deletes member-1's ConfigMap: it is written again at the next
	// read (every Reread), and the tenant reported again.
	gone := &corev1.ConfigMap{}
	if err := a.Get(t.Context(), configMapKey(), gone); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(t.Context(), gone); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 10*time.Second, func() error {
		again := &corev1.ConfigMap{}
		if err := a.Get(t.Context(), configMapKey(), again); err != nil {
			return err
		}
		if again.UID == gone.UID {
			return fmt.Errorf("ConfigMap not written again yet")
		}
		if len(events(t, a, t1InA)) != 2 {
			return fmt.Errorf("not reported again yet")
		}
		return nil
	})
	waitOverlaps(t, a, map[string]string{"t1": `[{"member":"member-2","holder":"` + holder2 + `"}]`})

	// member-2's claim of t1 expires: the overlap is gone from both members.
	framework.Update(t, b, t1InB, func() {
		t1InB.Spec.RenewTime = &metav1.MicroTime{Time: time.Now().Add(-time.Hour)}
		t1InB.Spec.LeaseDurationSeconds = ptr.To(int32(15))
	})
	waitOverlaps(t, a, nil)
	waitOverlaps(t, b, nil)
	for _, m := range []string{member1, member2} {
		framework.Eventually(t, 5*time.Second, func() error {
			if n := testutil.ToFloat64(overlapsGauge.WithLabelValues(m)); n != 0 {
				return fmt.Errorf("antreaplus_federation_tenant_overlaps{member=%s} = %v, want 0", m, n)
			}
			return nil
		})
	}
	// member-2 was told once, member-1 once more after its ConfigMap was deleted.
	for _, c := range []struct {
		cl     client.Client
		member string
		claim  *coordinationv1.Lease
		want   int
	}{{a, member1, t1InA, 2}, {b, member2, t1InB, 1}} {
		if n := len(events(t, c.cl, c.claim)); n != c.want {
			t.Errorf("%d events in %s, want %d", n, c.member, c.want)
		}
	}
}

// federate makes member-1 the supervisor of a federation that member-2 joins.
func federate(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	sup := membership.Cluster{Name: member1, Config: clusters.Config(t, member1)}
	if err := membership.Create(ctx, io.Discard, "fed", []membership.Cluster{sup}, membership.CreateOptions{}); err != nil {
		t.Fatalf("creating the federation: %v", err)
	}
	joining := membership.Cluster{Name: member2, Config: clusters.Config(t, member2)}
	if _, err := membership.Join(ctx, io.Discard, joining, member2, []membership.Cluster{sup}, membership.JoinOptions{FederationID: "fed"}); err != nil {
		t.Fatalf("joining %s: %v", member2, err)
	}
}

// runManager runs member-1's federation manager in-process, with this
// controller alone, until the test ends.
func runManager(t *testing.T) {
	t.Helper()
	cfg := clusters.Config(t, member1)
	sch, err := scheme.New()
	if err != nil {
		t.Fatal(err)
	}
	opts := manager.DefaultOptions()
	// SkipNameValidation: the test may run again in the same process (-count).
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: sch, Metrics: metricsserver.Options{BindAddress: "0"},
		Cache:      cache.Options{DefaultNamespaces: map[string]cache.Config{opts.Namespace: {}}},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		t.Fatal(err)
	}
	c := New(mgr.GetAPIReader(), opts.Namespace)
	c.Reread = 2 * time.Second
	opts.LeaderControllers = []manager.LeaderController{c}
	if err := manager.New(opts, member1, mgr.GetClient(), cfg).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the manager returned %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("the manager did not stop within 30 s")
		}
	})
}

// claim creates tenant's claim Lease, held by holder, renewed at renew.
func claim(t *testing.T, c client.Client, tenant, holder string, renew time.Time, d time.Duration) *coordinationv1.Lease {
	t.Helper()
	l := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: tenancyv1alpha1.ClaimLeaseName(tenant), Labels: map[string]string{
			tenancyv1alpha1.LabelLease: tenancyv1alpha1.LeaseClaim, tenancyv1alpha1.LabelTenant: tenant, tenancyv1alpha1.LabelInstance: strings.Split(holder, "/")[0]}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(holder), RenewTime: &metav1.MicroTime{Time: renew},
			AcquireTime: &metav1.MicroTime{Time: renew}, LeaseDurationSeconds: ptr.To(int32(d / time.Second))},
	}
	if err := c.Create(t.Context(), l); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.WithoutCancel(t.Context()), l) })
	return l
}

// waitOverlaps waits until the ConfigMap holds want; nil: until there is none.
func waitOverlaps(t *testing.T, c client.Client, want map[string]string) {
	t.Helper()
	framework.Eventually(t, 20*time.Second, func() error {
		cm := &corev1.ConfigMap{}
		err := c.Get(t.Context(), configMapKey(), cm)
		switch {
		case want == nil && apierrors.IsNotFound(err):
			return nil
		case want == nil && err == nil:
			return fmt.Errorf("ConfigMap still there: %v", cm.Data)
		case err != nil:
			return err
		case !maps.Equal(cm.Data, want):
			return fmt.Errorf("ConfigMap data %v, want %v", cm.Data, want)
		}
		return nil
	})
}

// events are the Warning Events of reason ReasonClaimedInOtherMember on a claim.
func events(t *testing.T, c client.Client, claim *coordinationv1.Lease) []corev1.Event {
	t.Helper()
	list := &corev1.EventList{}
	if err := c.List(t.Context(), list, client.InNamespace(federationv1alpha1.SystemNamespace)); err != nil {
		t.Fatal(err)
	}
	var out []corev1.Event
	for _, e := range list.Items {
		if e.Reason == ReasonClaimedInOtherMember && e.InvolvedObject.Kind == "Lease" && e.InvolvedObject.UID == claim.UID {
			out = append(out, e)
		}
	}
	return out
}

// waitEvent waits for the Warning on member's claim, naming the other
// member, its holder and what to do.
func waitEvent(t *testing.T, c client.Client, claim *coordinationv1.Lease, member, other, holder string) {
	t.Helper()
	framework.Eventually(t, 10*time.Second, func() error {
		evs := events(t, c, claim)
		if len(evs) != 1 {
			return fmt.Errorf("%d events %s on the claim of t1 in %s, want 1", len(evs), ReasonClaimedInOtherMember, member)
		}
		e := evs[0]
		for _, s := range []string{"member " + other, holder, "--tenant-selector", "disjoint"} {
			if e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, s) {
				return fmt.Errorf("event %s %q does not say %q", e.Type, e.Message, s)
			}
		}
		return nil
	})
}

func writesTo(member string) float64 {
	n := 0.0
	for _, kind := range []string{kindConfigMap, kindEvent} {
		for _, verb := range []string{"create", "update", "delete"} {
			n += testutil.ToFloat64(metrics.Writes.WithLabelValues(member, kind, verb))
		}
	}
	return n
}

// TestNewLeaderKeepsWhatItCannotRead leads member-1 after a predecessor
// wrote its ConfigMap: the new leader rewrites nothing and reports nothing
// again. While member-2 cannot be read, or is missing from the manager's
// view but still registered, the overlap with it stays, although its claim
// has expired meanwhile; once gone from the registry, it is withdrawn.
func TestNewLeaderKeepsWhatItCannotRead(t *testing.T) {
	a, b := clusters.Client(t, member1), clusters.Client(t, member2)
	now := time.Now()
	t4InA := claim(t, a, "t4", holder1, now, time.Hour)
	t4InB := claim(t, b, "t4", holder2, now, time.Hour)
	want := map[string]string{"t4": `[{"member":"member-2","holder":"` + holder2 + `"}]`}
	written := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: tenancyv1alpha1.OverlapsConfigMap}, Data: want}
	if err := a.Create(t.Context(), written); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteOverlaps(t, a) })

	ca, cb := leadertest.Cluster(t, clusters, member1, true), leadertest.Cluster(t, clusters, member2, true)
	view := leadertest.NewView(
		manager.MemberInfo{ClusterID: member1, Cluster: ca, Reachable: true},
		manager.MemberInfo{ClusterID: member2, Cluster: cb, Reachable: true})
	registry := leadertest.NewRegistry(member1, member2)
	before, ok := writesTo(member1), testutil.ToFloat64(metrics.Reconciles.WithLabelValues(member1, "ok"))
	c := New(registry, federationv1alpha1.SystemNamespace)
	c.Resync = time.Second // several reconciles soon, none with anything to write
	leadertest.Lead(t, c, member1, ca, view)
	framework.Eventually(t, 10*time.Second, func() error {
		if n := testutil.ToFloat64(metrics.Reconciles.WithLabelValues(member1, "ok")) - ok; n < 3 {
			return fmt.Errorf("%v reconciles by the new leader", n)
		}
		return nil
	})
	if n := writesTo(member1) - before; n != 0 {
		t.Errorf("the new leader made %v writes, want none", n)
	}
	if evs := events(t, a, t4InA); len(evs) != 0 {
		t.Errorf("the new leader reported again what its predecessor had: %v", evs[0].Message)
	}

	// member-2 cannot be read; its claim is released meanwhile.
	view.Set(manager.MemberInfo{ClusterID: member2, Cluster: leadertest.Cluster(t, clusters, member2, false)})
	time.Sleep(time.Second)
	framework.Update(t, b, t4InB, func() { t4InB.Spec.HolderIdentity = nil })
	stays(t, a, want, 2*time.Second)

	// Missing from the view, still registered: kept.
	view.Remove(member2)
	stays(t, a, want, 2*time.Second)

	// Gone from the registry: it left the federation.
	registry.SetPresent(member2, false)
	waitOverlaps(t, a, nil)
}

// deleteOverlaps deletes the ConfigMap, if any.
func deleteOverlaps(t *testing.T, c client.Client) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: tenancyv1alpha1.OverlapsConfigMap}}
	if err := c.Delete(context.WithoutCancel(t.Context()), cm); client.IgnoreNotFound(err) != nil {
		t.Errorf("deleting the ConfigMap: %v", err)
	}
}

// stays checks that the ConfigMap holds want throughout d.
func stays(t *testing.T, c client.Client, want map[string]string, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		cm := &corev1.ConfigMap{}
		if err := c.Get(t.Context(), configMapKey(), cm); err != nil || !maps.Equal(cm.Data, want) {
			t.Fatalf("ConfigMap %v (%v), want it kept as %v", cm.Data, err, want)
		}
	}
}
