package externaldns

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/dnsendpoints"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/leadertest"
)

// The addresses the federation test's exporters offer.
const (
	lbIPv4    = "203.0.113.10"
	lbIPv6    = "2001:db8::10"
	lbHost    = "lb.example.net"
	shopNS    = "shop"
	regionAll = "sandbox" // the sandbox puts member-1 and member-2 in region "sandbox", in zones member-1 and member-2
)

// fedEnv is the federation test's two members and the leader of member-1.
type fedEnv struct {
	a, b client.Client
	view *leadertest.View
	// nodeIPs are member-2's nodes' ExternalIPs, sorted.
	nodeIPs []string
	lead    func() (stop func())
}

// setUpFederation makes member-1 ask for external DNS under domain, gives
// member-2's nodes ExternalIPs and runs the DNSEndpoints controller as
// member-1's leader.
func setUpFederation(t *testing.T, domain string) *fedEnv {
	t.Helper()
	e := &fedEnv{a: clusters.Client(t, member), b: clusters.Client(t, member2)}
	for _, c := range []client.Client{e.a, e.b} {
		framework.EnsureNamespaces(t, c, shopNS, federationv1alpha1.SystemNamespace)
	}
	framework.WriteMembership(t, e.a, member, &federationv1alpha1.ExternalDNSSpec{Domain: domain, RecordTTL: 30})
	framework.WriteMembership(t, e.b, member2, nil)
	e.nodeIPs = framework.GiveNodesExternalIPs(t, e.b)
	ca, cb := leadertest.Cluster(t, clusters, member, true), leadertest.Cluster(t, clusters, member2, true)
	e.view = leadertest.NewView(
		manager.MemberInfo{ClusterID: member, Cluster: ca, Reachable: true},
		manager.MemberInfo{ClusterID: member2, Cluster: cb, Reachable: true})
	e.lead = func() func() {
		return leadertest.Lead(t, dnsendpoints.New(leadertest.NewRegistry(member, member2), federationv1alpha1.SystemNamespace), member, ca, e.view)
	}
	return e
}

// TestFederationPublished runs the federation's writer with the real
// consumer: the DNSEndpoints controller, as member-1's leader, publishes
// web (a load balancer with IPv4 and IPv6 in member-1, node ports in
// member-2) and api (a load balancer known by hostname) for the
// ExternalDNS of member-1, and CoreDNS answers the federation-wide, region
// and zone names; then member-2 unreachable and back, a new leader, a
// domain change and unexports, with someone else's records left alone.
func TestFederationPublished(t *testing.T) {
	domain, domain2 := "one."+zone, "two."+zone
	s := startStack(t, federationv1alpha1.SystemNamespace)
	e := setUpFederation(t, domain)
	nodeIPs := e.nodeIPs
	web := func(d string) string { return "web." + shopNS + ".fed.svc." + d }
	all4 := slices.Sorted(slices.Values(append([]string{lbIPv4}, nodeIPs...)))

	// Someone else's records, published by the same ExternalDNS.
	s.create(t, "theirs", record("theirs."+zone, "A", "192.0.2.50"))
	s.expect(t, "theirs."+zone, dns.TypeA, dns.RcodeSuccess, "192.0.2.50")

	framework.ExportService(t, e.a, shopNS, "web", corev1.ServiceTypeLoadBalancer, corev1.LoadBalancerIngress{IP: lbIPv4}, corev1.LoadBalancerIngress{IP: lbIPv6})
	exp2 := framework.ExportService(t, e.b, shopNS, "web", corev1.ServiceTypeNodePort)
	framework.ExportService(t, e.a, shopNS, "api", corev1.ServiceTypeLoadBalancer, corev1.LoadBalancerIngress{Hostname: lbHost})
	start := time.Now()
	stop := e.lead()
	s.expect(t, web(domain), dns.TypeA, dns.RcodeSuccess, all4...)
	t.Logf("web answered by the external DNS server %s after the leader started (ExternalDNS --interval %s)", time.Since(start).Round(10*time.Millisecond), interval)
	s.expect(t, web(domain), dns.TypeAAAA, dns.RcodeSuccess, lbIPv6)
	s.expect(t, web(regionAll+"."+domain), dns.TypeA, dns.RcodeSuccess, all4...)
	s.expect(t, web(member+"."+regionAll+"."+domain), dns.TypeA, dns.RcodeSuccess, lbIPv4)
	s.expect(t, web(member2+"."+regionAll+"."+domain), dns.TypeA, dns.RcodeSuccess, nodeIPs...)
	s.expect(t, web(member2+"."+regionAll+"."+domain), dns.TypeAAAA, dns.RcodeSuccess)
	// A hostname: a CNAME, answered to an A query (not chased: outside the zone).
	s.expect(t, "api."+shopNS+".fed.svc."+domain, dns.TypeA, dns.RcodeSuccess, lbHost+".")

	// member-2 is marked unreachable (past the grace): it leaves every name
	// after the hold-down; back, it returns.
	since := time.Now()
	e.view.Set(manager.MemberInfo{ClusterID: member2, Cluster: leadertest.Cluster(t, clusters, member2, false), UnreachableSince: &since})
	s.expect(t, web(domain), dns.TypeA, dns.RcodeSuccess, lbIPv4)
	s.expect(t, web(member2+"."+regionAll+"."+domain), dns.TypeA, dns.RcodeNameError)
	t.Logf("member-2 left the answers %s after it was marked unreachable (hold-down 5s)", time.Since(since).Round(10*time.Millisecond))
	back := time.Now()
	e.view.Set(manager.MemberInfo{ClusterID: member2, Cluster: leadertest.Cluster(t, clusters, member2, true), Reachable: true})
	s.expect(t, web(domain), dns.TypeA, dns.RcodeSuccess, all4...)
	t.Logf("member-2 answered again %s after it was readable again", time.Since(back).Round(10*time.Millisecond))

	// A new leader takes over: it rewrites no DNSEndpoint, and the answers
	// never change meanwhile. The names watched hold one address family:
	// ExternalDNS's coredns provider rewrites a dual-stack name's entries on
	// every sync whoever leads (TestPublishesThroughCoreDNS, the known gap),
	// so web's global name may answer part of its addresses at any moment.
	written := e.dnsEndpointVersions(t)
	watch := s.watchAnswers(t, map[string][]string{
		web(member2 + "." + regionAll + "." + domain): nodeIPs,
		"api." + shopNS + ".fed.svc." + domain:        {lbHost + "."},
	})
	stop()
	stop = e.lead()
	time.Sleep(3 * interval)
	if bad := watch(); len(bad) > 0 {
		t.Errorf("answers changed while the leader changed: %v", bad)
	}
	if now := e.dnsEndpointVersions(t); !maps.Equal(written, now) {
		t.Errorf("the new leader rewrote DNSEndpoints (name: resourceVersion): before %v, after %v", written, now)
	}

	// A domain change: the names move.
	cm := &federationv1alpha1.ClusterMembership{}
	if err := e.a.Get(t.Context(), client.ObjectKey{Name: federationv1alpha1.MembershipName}, cm); err != nil {
		t.Fatal(err)
	}
	framework.Update(t, e.a, cm, func() { cm.Spec.ExternalDNS.Domain = domain2 })
	s.expect(t, web(domain2), dns.TypeA, dns.RcodeSuccess, all4...)
	s.expect(t, web(domain), dns.TypeA, dns.RcodeNameError)

	// Unexported: member-2's part goes, then the name.
	if err := e.b.Delete(t.Context(), exp2); err != nil {
		t.Fatal(err)
	}
	s.expect(t, web(domain2), dns.TypeA, dns.RcodeSuccess, lbIPv4)
	if err := e.a.Delete(t.Context(), &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: shopNS, Name: "web"}}); err != nil {
		t.Fatal(err)
	}
	s.expect(t, web(domain2), dns.TypeA, dns.RcodeNameError)
	s.expect(t, web(domain2), dns.TypeAAAA, dns.RcodeNameError)
	stop()
	s.expect(t, "theirs."+zone, dns.TypeA, dns.RcodeSuccess, "192.0.2.50")
}

// watchAnswers asks CoreDNS for each name's A records every 100 ms until
// the returned function is called, which returns every answer that
// differed from the name's want.
func (s *stack) watchAnswers(t *testing.T, want map[string][]string) func() []string {
	t.Helper()
	var mu sync.Mutex
	var bad []string
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			for name, addrs := range want {
				rcode, data, err := s.query(name, dns.TypeA)
				if err != nil || rcode != dns.RcodeSuccess || !slices.Equal(data, addrs) {
					mu.Lock()
					bad = append(bad, fmt.Sprintf("%s: %s %v %v", name, dns.RcodeToString[rcode], data, err))
					mu.Unlock()
				}
			}
		}
	})
	return func() []string {
		close(done)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(bad)
	}
}

// dnsEndpointVersions returns the resourceVersion of every DNSEndpoint in
// member-1's antreaplus-system, by name.
func (e *fedEnv) dnsEndpointVersions(t *testing.T) map[string]string {
	t.Helper()
	var list externaldnsv1alpha1.DNSEndpointList
	if err := e.a.List(t.Context(), &list, client.InNamespace(federationv1alpha1.SystemNamespace)); err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string, len(list.Items))
	for _, ep := range list.Items {
		out[ep.Name] = ep.ResourceVersion
	}
	if len(out) == 0 {
		t.Fatal("no DNSEndpoint in member-1's antreaplus-system")
	}
	return out
}
