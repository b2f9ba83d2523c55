package dnsendpoints

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/exportscope"
	"antreaplus.io/antreaplus/pkg/externaldns/records"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/leadertest"
)

const (
	member1 = "member-1"
	member2 = "member-2"
	domain  = "ext.antreaplus.test"
	lbIP    = "203.0.113.10"
	// The sandbox's regions: member-1 and member-2 are both in region
	// "sandbox", in zones member-1 and member-2.
	region = "sandbox"
)

// env is the test's two members, member-1 asking for external DNS.
type env struct {
	a, b client.Client
	ns   string
	view *leadertest.View
	// nodeIPs are member-2's nodes' ExternalIPs, sorted.
	nodeIPs []string
}

func setUp(t *testing.T) *env {
	t.Helper()
	e := &env{a: clusters.Client(t, member1), b: clusters.Client(t, member2), ns: "shop"}
	framework.InstallDNSEndpointCRD(t, clusters.Config(t, member1))
	for _, c := range []client.Client{e.a, e.b} {
		framework.EnsureNamespaces(t, c, e.ns, federationv1alpha1.SystemNamespace)
	}
	framework.WriteMembership(t, e.a, member1, &federationv1alpha1.ExternalDNSSpec{Domain: domain, RecordTTL: 60})
	framework.WriteMembership(t, e.b, member2, nil)
	e.nodeIPs = framework.GiveNodesExternalIPs(t, e.b)
	ca, cb := leadertest.Cluster(t, clusters, member1, true), leadertest.Cluster(t, clusters, member2, true)
	e.view = leadertest.NewView(
		manager.MemberInfo{ClusterID: member1, Cluster: ca, Reachable: true},
		manager.MemberInfo{ClusterID: member2, Cluster: cb, Reachable: true})
	return e
}

// endpoint reads the DNSEndpoint of Service name in member-1; nil when none.
func (e *env) endpoint(t *testing.T, name string) *externaldnsv1alpha1.DNSEndpoint {
	t.Helper()
	ep := &externaldnsv1alpha1.DNSEndpoint{}
	err := e.a.Get(t.Context(), client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: name + "." + e.ns}, ep)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// records are the DNSEndpoint's targets by "name type".
func recordsOf(ep *externaldnsv1alpha1.DNSEndpoint) map[string][]string {
	out := map[string][]string{}
	if ep == nil {
		return out
	}
	for _, r := range ep.Spec.Endpoints {
		out[r.DNSName+" "+r.RecordType] = r.Targets
	}
	return out
}

// waitRecord waits until the DNSEndpoint of name has record "dnsName type"
// with exactly targets (none: until the record is gone).
func (e *env) waitRecord(t *testing.T, name, record string, targets ...string) {
	t.Helper()
	framework.Eventually(t, 20*time.Second, func() error {
		got := recordsOf(e.endpoint(t, name))[record]
		if !slices.Equal(got, targets) {
			return fmt.Errorf("record %s: %v, want %v", record, got, targets)
		}
		return nil
	})
}

// settleWrites waits until the writes to member stop for a second (5 s at
// most).
func settleWrites(member string) {
	last, since := writesTo(member), time.Now()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && time.Since(since) < time.Second; {
		time.Sleep(100 * time.Millisecond)
		if n := writesTo(member); n != last {
			last, since = n, time.Now()
		}
	}
}

func writesTo(member string) float64 {
	n := 0.0
	for _, verb := range []string{"create", "update", "delete"} {
		n += testutil.ToFloat64(metrics.Writes.WithLabelValues(member, kindDNSEndpoint, verb))
	}
	return n
}

// TestPublishedFromEveryExporter exports web through a load balancer in
// member-1 and node ports in member-2 and follows the records member-1's
// DNSEndpoint holds through an opt-out, member-2 unreadable, unreachable and
// back, a new leader, a domain change, someone else's DNSEndpoint in the
// way, and unexports.
func TestPublishedFromEveryExporter(t *testing.T) {
	e := setUp(t)
	framework.ExportService(t, e.a, e.ns, "web", corev1.ServiceTypeLoadBalancer, corev1.LoadBalancerIngress{IP: lbIP})
	exp2 := framework.ExportService(t, e.b, e.ns, "web", corev1.ServiceTypeNodePort)
	nodeIPs := e.nodeIPs
	all := slices.Sorted(slices.Values(append([]string{lbIP}, nodeIPs...)))
	fedName := "web." + e.ns + ".fed.svc." + domain
	regionName := "web." + e.ns + ".fed.svc." + region + "." + domain
	zone1 := "web." + e.ns + ".fed.svc." + member1 + "." + region + "." + domain
	zone2 := "web." + e.ns + ".fed.svc." + member2 + "." + region + "." + domain

	start := time.Now()
	stop := leadertest.Lead(t, New(leadertest.NewRegistry(member1, member2), federationv1alpha1.SystemNamespace), member1, e.view.Members()[0].Cluster, e.view)
	e.waitRecord(t, "web", fedName+" A", all...)
	t.Logf("published %s after the leader started", time.Since(start).Round(10*time.Millisecond))
	e.waitRecord(t, "web", regionName+" A", all...)
	e.waitRecord(t, "web", zone1+" A", lbIP)
	e.waitRecord(t, "web", zone2+" A", nodeIPs...)
	ep := e.endpoint(t, "web")
	srv := recordsOf(ep)["_http._tcp."+fedName+" SRV"]
	wantSRV := []string{"0 50 80 web." + e.ns + "." + member1 + ".fed.svc." + domain + ".",
		fmt.Sprintf("0 50 %d web.%s.%s.fed.svc.%s.", nodePortOf(t, e.b, e.ns, "web"), e.ns, member2, domain)}
	if slices.Sort(srv); !slices.Equal(srv, slices.Sorted(slices.Values(wantSRV))) {
		t.Errorf("SRV of %s: %v, want member-1's load balancer on 80 and member-2's node port", fedName, srv)
	}
	for _, r := range ep.Spec.Endpoints {
		if r.RecordTTL != 60 {
			t.Errorf("record %s %s has TTL %d, want the membership's 60", r.DNSName, r.RecordType, r.RecordTTL)
		}
	}
	if ep.Labels[federationv1alpha1.LabelManagedBy] != federationv1alpha1.ManagedByFederation || ep.Labels[federationv1alpha1.LabelServiceName] != "web" || ep.Annotations[federationv1alpha1.AnnotationLeaderTerm] == "" {
		t.Errorf("DNSEndpoint labels %v annotations %v: want ours, with the Service and the leader's term", ep.Labels, ep.Annotations)
	}

	// Steady state: resyncs, node heartbeats; nothing written.
	before := writesTo(member1)
	time.Sleep(3 * time.Second)
	if n := writesTo(member1) - before; n != 0 {
		t.Errorf("%v writes in a steady state", n)
	}

	// member-2 opts its export out, then in again.
	framework.Update(t, e.b, exp2, func() { exp2.Annotations = map[string]string{records.OptOutAnnotation: "false"} })
	e.waitRecord(t, "web", fedName+" A", lbIP)
	e.waitRecord(t, "web", zone2+" A")
	framework.Update(t, e.b, exp2, func() { delete(exp2.Annotations, records.OptOutAnnotation) })
	e.waitRecord(t, "web", fedName+" A", all...)

	// member-2 cannot be read (its cache is not synced): its part is kept.
	e.view.Set(manager.MemberInfo{ClusterID: member2, Cluster: leadertest.Cluster(t, clusters, member2, false), Reachable: false})
	stays(t, e, "web", fedName+" A", all, 3*time.Second)
	// The federation marks it unreachable (past the grace): it drops out after the hold-down.
	since := time.Now()
	e.view.Set(manager.MemberInfo{ClusterID: member2, Cluster: leadertest.Cluster(t, clusters, member2, false), UnreachableSince: &since})
	e.waitRecord(t, "web", fedName+" A", lbIP)
	t.Logf("member-2 dropped out %s after it was marked unreachable (hold-down 5s)", time.Since(since).Round(10*time.Millisecond))
	// Back: readable again.
	back := time.Now()
	e.view.Set(manager.MemberInfo{ClusterID: member2, Cluster: leadertest.Cluster(t, clusters, member2, true), Reachable: true})
	e.waitRecord(t, "web", fedName+" A", all...)
	t.Logf("member-2 back in the records %s after it was readable again", time.Since(back).Round(10*time.Millisecond))

	// A new leader decides the same records: it writes nothing. (The old
	// leader may still be writing what the return brought, the annotations
	// after the records: its writes settle first, else one of them would be
	// counted as the new leader's, as on a loaded machine.)
	settleWrites(member1)
	stop()
	before = writesTo(member1)
	leadertest.Lead(t, New(leadertest.NewRegistry(member1, member2), federationv1alpha1.SystemNamespace), member1, e.view.Members()[0].Cluster, e.view)
	time.Sleep(3 * time.Second)
	if n := writesTo(member1) - before; n != 0 {
		t.Errorf("the new leader made %v writes, want none", n)
	}

	// Someone else's DNSEndpoint has the name of api's: left alone, reported.
	theirs := &externaldnsv1alpha1.DNSEndpoint{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: "api." + e.ns},
		Spec: externaldnsv1alpha1.DNSEndpointSpec{Endpoints: []*externaldnsv1alpha1.Endpoint{{DNSName: "api.example", RecordType: "A", Targets: []string{"192.0.2.1"}}}}}
	if err := e.a.Create(t.Context(), theirs); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.a.Delete(context.WithoutCancel(t.Context()), theirs) })
	framework.ExportService(t, e.a, e.ns, "api", corev1.ServiceTypeLoadBalancer, corev1.LoadBalancerIngress{IP: lbIP})
	framework.Eventually(t, 20*time.Second, func() error {
		list := &corev1.EventList{}
		if err := e.a.List(t.Context(), list, client.InNamespace(federationv1alpha1.SystemNamespace)); err != nil {
			return err
		}
		for _, ev := range list.Items {
			if ev.Reason == ReasonInTheWay && ev.InvolvedObject.UID == theirs.UID && strings.Contains(ev.Message, e.ns+"/api") {
				return nil
			}
		}
		return fmt.Errorf("no %s event on %s", ReasonInTheWay, theirs.Name)
	})
	if got := e.endpoint(t, "api"); got.ResourceVersion != theirs.ResourceVersion {
		t.Errorf("someone else's DNSEndpoint was changed: %+v", got)
	}
	if n := testutil.ToFloat64(blocked.WithLabelValues(member1)); n != 1 {
		t.Errorf("antreaplus_federation_dnsendpoints_blocked = %v, want 1", n)
	}

	// A domain change moves every record.
	cm := &federationv1alpha1.ClusterMembership{}
	if err := e.a.Get(t.Context(), client.ObjectKey{Name: federationv1alpha1.MembershipName}, cm); err != nil {
		t.Fatal(err)
	}
	framework.Update(t, e.a, cm, func() { cm.Spec.ExternalDNS.Domain = "other.test" })
	e.waitRecord(t, "web", "web."+e.ns+".fed.svc.other.test A", all...)
	e.waitRecord(t, "web", fedName+" A")

	// Unexported in member-2, then in member-1: the DNSEndpoint is deleted.
	if err := e.b.Delete(t.Context(), exp2); err != nil {
		t.Fatal(err)
	}
	e.waitRecord(t, "web", "web."+e.ns+".fed.svc.other.test A", lbIP)
	if err := e.a.Delete(t.Context(), &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: "web"}}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 20*time.Second, func() error {
		if ep := e.endpoint(t, "web"); ep != nil {
			return fmt.Errorf("DNSEndpoint still there: %v", recordsOf(ep))
		}
		return nil
	})
	// The domain removed: nothing published.
	if err := e.a.Get(t.Context(), client.ObjectKey{Name: federationv1alpha1.MembershipName}, cm); err != nil {
		t.Fatal(err)
	}
	framework.Update(t, e.a, cm, func() { cm.Spec.ExternalDNS = nil })
	if got := e.endpoint(t, "api"); got == nil || got.ResourceVersion != theirs.ResourceVersion {
		t.Errorf("someone else's DNSEndpoint was touched when the domain was removed")
	}
}

func nodePortOf(t *testing.T, c client.Client, ns, name string) int32 {
	t.Helper()
	svc := &corev1.Service{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, svc); err != nil {
		t.Fatal(err)
	}
	return svc.Spec.Ports[0].NodePort
}

// stays checks that record keeps targets throughout d.
func stays(t *testing.T, e *env, name, record string, targets []string, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if got := recordsOf(e.endpoint(t, name))[record]; !slices.Equal(got, targets) {
			t.Fatalf("record %s: %v, want it kept as %v", record, got, targets)
		}
	}
}

// TestAPIInstalledLater leads member-2, which asks for external DNS before
// ExternalDNS's CRD is installed there: nothing is written and the gauge
// says so; once the CRD is installed, the records are published within
// seconds, without a restart.
func TestAPIInstalledLater(t *testing.T) {
	a, b := clusters.Client(t, member1), clusters.Client(t, member2)
	for _, c := range []client.Client{a, b} {
		framework.EnsureNamespaces(t, c, "late")
	}
	cm := &federationv1alpha1.ClusterMembership{}
	if err := b.Get(t.Context(), client.ObjectKey{Name: federationv1alpha1.MembershipName}, cm); apierrors.IsNotFound(err) {
		framework.WriteMembership(t, b, member2, &federationv1alpha1.ExternalDNSSpec{Domain: domain})
	} else if err != nil {
		t.Fatal(err)
	} else {
		framework.Update(t, b, cm, func() { cm.Spec.ExternalDNS = &federationv1alpha1.ExternalDNSSpec{Domain: domain} })
	}
	e := &env{a: b, b: a, ns: "late"}
	framework.ExportService(t, b, e.ns, "db", corev1.ServiceTypeLoadBalancer, corev1.LoadBalancerIngress{IP: lbIP})
	cb := leadertest.Cluster(t, clusters, member2, true)
	view := leadertest.NewView(manager.MemberInfo{ClusterID: member2, Cluster: cb, Reachable: true})
	leadertest.Lead(t, New(leadertest.NewRegistry(member2), federationv1alpha1.SystemNamespace), member2, cb, view)
	framework.Eventually(t, 20*time.Second, func() error {
		if n := testutil.ToFloat64(apiMissing.WithLabelValues(member2)); n != 1 {
			return fmt.Errorf("antreaplus_federation_dnsendpoints_api_missing{member=member-2} = %v, want 1", n)
		}
		return nil
	})
	framework.InstallDNSEndpointCRD(t, clusters.Config(t, member2))
	installed := time.Now()
	framework.Eventually(t, 20*time.Second, func() error {
		ep := &externaldnsv1alpha1.DNSEndpoint{}
		if err := b.Get(t.Context(), client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: "db.late"}, ep); err != nil {
			return err
		}
		if got := recordsOf(ep)["db.late.fed.svc."+domain+" A"]; !slices.Equal(got, []string{lbIP}) {
			return fmt.Errorf("records %v", recordsOf(ep))
		}
		return nil
	})
	t.Logf("published %s after the CRD was installed", time.Since(installed).Round(10*time.Millisecond))
	if n := testutil.ToFloat64(apiMissing.WithLabelValues(member2)); n != 0 {
		t.Errorf("antreaplus_federation_dnsendpoints_api_missing{member=member-2} = %v after the CRD was installed, want 0", n)
	}
}

// TestPublishedOnlyWhereExported publishes for member-1 only the exporters
// whose export reaches member-1: member-2's export scoped elsewhere drops
// out of member-1's records, and back in when the scope is removed; then
// member-1 refuses member-2 (its ClusterMembership's spec.imports).
func TestPublishedOnlyWhereExported(t *testing.T) {
	e := setUp(t)
	framework.ExportService(t, e.a, e.ns, "ledger", corev1.ServiceTypeLoadBalancer, corev1.LoadBalancerIngress{IP: lbIP})
	exp2 := framework.ExportService(t, e.b, e.ns, "ledger", corev1.ServiceTypeNodePort)
	framework.Update(t, e.b, exp2, func() {
		exp2.Annotations = map[string]string{federationv1alpha1.AnnotationExportToClusters: "member-9"}
	})
	all := slices.Sorted(slices.Values(append([]string{lbIP}, e.nodeIPs...)))
	fedName := "ledger." + e.ns + ".fed.svc." + domain
	leadertest.Lead(t, New(leadertest.NewRegistry(member1, member2), federationv1alpha1.SystemNamespace), member1, e.view.Members()[0].Cluster, e.view)
	e.waitRecord(t, "ledger", fedName+" A", lbIP)
	stays(t, e, "ledger", fedName+" A", []string{lbIP}, 2*time.Second)

	framework.Update(t, e.b, exp2, func() { delete(exp2.Annotations, federationv1alpha1.AnnotationExportToClusters) })
	e.waitRecord(t, "ledger", fedName+" A", all...)

	cm := &federationv1alpha1.ClusterMembership{ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.MembershipName}}
	framework.Update(t, e.a, cm, func() { cm.Spec.Imports = &federationv1alpha1.ImportsSpec{RefuseFrom: []string{member2}} })
	e.waitRecord(t, "ledger", fedName+" A", lbIP)
	framework.Update(t, e.a, cm, func() { cm.Spec.Imports = nil })
	e.waitRecord(t, "ledger", fedName+" A", all...)
}

// TestJoinPublished exports payments/pay from member-2 joining shop/web2,
// which member-1 exports: member-1's records of shop/web2 count member-2's
// nodes once member-1's Namespace shop accepts payments, and no longer
// once it stops accepting; payments/pay itself is published nowhere.
func TestJoinPublished(t *testing.T) {
	e := setUp(t)
	framework.EnsureNamespaces(t, e.b, "payments")
	framework.ExportService(t, e.a, e.ns, "web2", corev1.ServiceTypeLoadBalancer, corev1.LoadBalancerIngress{IP: lbIP})
	pay := framework.ExportService(t, e.b, "payments", "pay", corev1.ServiceTypeNodePort)
	framework.Update(t, e.b, pay, func() {
		pay.Annotations = map[string]string{federationv1alpha1.AnnotationJoins: e.ns + "/web2"}
	})
	all := slices.Sorted(slices.Values(append([]string{lbIP}, e.nodeIPs...)))
	fedName := "web2." + e.ns + ".fed.svc." + domain
	leadertest.Lead(t, New(leadertest.NewRegistry(member1, member2), federationv1alpha1.SystemNamespace), member1, e.view.Members()[0].Cluster, e.view)
	e.waitRecord(t, "web2", fedName+" A", lbIP)
	stays(t, e, "web2", fedName+" A", []string{lbIP}, 2*time.Second)

	accept := exportscope.AcceptLabel("payments")
	shop := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns}}
	framework.Update(t, e.a, shop, func() { shop.Labels[accept] = "true" })
	t.Cleanup(func() { framework.Update(t, e.a, shop, func() { delete(shop.Labels, accept) }) })
	e.waitRecord(t, "web2", fedName+" A", all...)

	framework.Update(t, e.a, shop, func() { delete(shop.Labels, accept) })
	e.waitRecord(t, "web2", fedName+" A", lbIP)
	ep := &externaldnsv1alpha1.DNSEndpoint{}
	if err := e.a.Get(t.Context(), client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: "pay.payments"}, ep); !apierrors.IsNotFound(err) {
		t.Errorf("payments/pay, which joins %s/web2, is published under its own name: %v", e.ns, err)
	}
}
