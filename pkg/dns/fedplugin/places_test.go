package fedplugin

import (
	"slices"
	"strings"
	"testing"

	"github.com/coredns/coredns/plugin/test"
	"github.com/miekg/dns"

	"antreaplus.io/antreaplus/pkg/dns/importcache"
)

func TestSplitFederation(t *testing.T) {
	tests := []struct {
		name string // under cluster.local.
		rest string
		p    place
		ok   bool
	}{
		{"web.demo.fed.svc", "web.demo", place{}, true},
		{"fed.svc", "", place{}, true},
		{"web.demo.c1.fed.svc", "web.demo.c1", place{}, true},
		{"web.demo.fed.svc.eu", "web.demo", place{region: "eu"}, true},
		{"WEB.demo.FED.SVC.eu", "WEB.demo", place{region: "eu"}, true},
		{"web.demo.fed.svc.eu-1a.eu", "web.demo", place{region: "eu", zone: "eu-1a"}, true},
		{"fed.svc.eu-1a.eu", "", place{region: "eu", zone: "eu-1a"}, true},
		{"_http._tcp.web.demo.c1.fed.svc.eu-1a.eu", "_http._tcp.web.demo.c1", place{region: "eu", zone: "eu-1a"}, true},
		{"web.demo.fed.svc.a.b.c", "", place{}, false}, // three labels after svc: no form
		{"web.demo.other.svc.eu", "", place{}, false},
		{"web.demo.svc.cluster", "", place{}, false},
		{"svc", "", place{}, false},
		// A region named svc is the region form, not the federation-wide one.
		{"web.demo.fed.svc.svc", "web.demo", place{region: "svc"}, true},
	}
	for _, tt := range tests {
		l := dns.SplitDomainName(tt.name)
		rest, p, ok := splitFederation(l, "fed")
		if ok != tt.ok || (ok && (strings.Join(rest, ".") != tt.rest || p != tt.p)) {
			t.Errorf("splitFederation(%s) = %v, %+v, %v; want %q, %+v, %v", tt.name, rest, p, ok, tt.rest, tt.p, tt.ok)
		}
	}
}

func FuzzSplitFederation(f *testing.F) {
	for _, s := range []string{"web.demo.fed.svc", "web.demo.fed.svc.eu", "a.fed.svc.z.r", "fed.svc.svc.svc", "svc.fed", "fed.svC.."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		l := dns.SplitDomainName(name)
		rest, p, ok := splitFederation(l, "fed")
		if !ok {
			return
		}
		// What was split off is <fed>.svc and the place's labels, in order.
		tail := []string{"fed", "svc"}
		if p.zone != "" {
			tail = append(tail, p.zone)
		}
		if p.region != "" {
			tail = append(tail, p.region)
		}
		if got := l[len(rest):]; len(rest) > len(l) || !slices.EqualFunc(got, tail, strings.EqualFold) {
			t.Fatalf("split %q into %v and %+v", name, rest, p)
		}
	})
}

// placesFixture is a member importing web (cluster-set IPs 10.96.0.10 and
// fd00::10, port http/80) and down (10.96.0.11), exported by:
//
//	c1  NodePort, region eu (nodes in eu-1a, eu-1b): 192.0.2.1 in eu-1a, 192.0.2.2 in eu-1b, on 31080
//	c2  LoadBalancer, region eu (nodes in eu-1a): 198.51.100.1 and 2001:db8::1, no zone of their own
//	c3  LoadBalancer, region US-West (nodes in us-west-1a): 203.0.113.1
//	c4  region unknown: 203.0.113.9 in eu-1a
//
// down's only exporter, c1, has no ready endpoint.
func placesFixture() *fakeSource {
	x := importcache.NewIndex()
	http := []importcache.Port{port("http", 80)}
	x.SetImport(newImport("demo", "web", ips("10.96.0.10", "fd00::10"), ports(http...)))
	placed := func(region string, zones []string, s *importcache.Slice) *importcache.Slice {
		s.Region, s.Zones = region, zones
		return s
	}
	eu1ab, eu1a := []string{"eu-1a", "eu-1b"}, []string{"eu-1a"}
	x.SetSlice(nil, placed("eu", eu1ab, newSlice("demo", "web", "c1", []importcache.Port{port("http", 31080)},
		zoned("eu-1a", "", "192.0.2.1"), zoned("eu-1b", "", "192.0.2.2"))))
	x.SetSlice(nil, placed("eu", eu1a, newSlice("demo", "web", "c2", http, ep("", "198.51.100.1"))))
	v6 := placed("eu", eu1a, newSlice("demo", "web", "c2", http, ep("", "2001:db8::1")))
	v6.Name += "-v6"
	x.SetSlice(nil, v6)
	x.SetSlice(nil, placed("US-West", []string{"us-west-1a"}, newSlice("demo", "web", "c3", http, ep("", "203.0.113.1"))))
	x.SetSlice(nil, placed("", nil, newSlice("demo", "web", "c4", http, zoned("eu-1a", "", "203.0.113.9"))))
	x.SetImport(newImport("demo", "down", ips("10.96.0.11"), ports(http...)))
	x.SetSlice(nil, placed("eu", eu1ab, newSlice("demo", "down", "c1", http)))
	return &fakeSource{Index: x, fed: "fed", synced: true}
}

func TestPlaceNames(t *testing.T) {
	src := placesFixture()
	soa := func(suffix string) []dns.RR {
		s := test.SOA(suffix + " 5 IN SOA ns.dns." + suffix + " hostmaster." + suffix + " 0 7200 1800 86400 5")
		s.Serial = src.Serial()
		return []dns.RR{s}
	}
	const (
		eu    = "fed.svc.eu.cluster.local."
		eu1a  = "fed.svc.eu-1a.eu.cluster.local."
		eu1b  = "fed.svc.eu-1b.eu.cluster.local."
		usw   = "fed.svc.us-west.cluster.local."
		whole = "fed.svc.cluster.local."
	)
	a := func(owner string, ips ...string) []dns.RR {
		var out []dns.RR
		for _, ip := range ips {
			if strings.Contains(ip, ":") {
				out = append(out, test.AAAA(owner+" 5 IN AAAA "+ip))
			} else {
				out = append(out, test.A(owner+" 5 IN A "+ip))
			}
		}
		return out
	}
	run(t, newTestPlugin(src), []test.Case{
		// A region: the exporters whose source region it is, load balancers included.
		{Qname: "web.demo." + eu, Qtype: dns.TypeA, Answer: a("web.demo."+eu, "192.0.2.1", "192.0.2.2", "198.51.100.1")},
		{Qname: "web.demo." + eu, Qtype: dns.TypeAAAA, Answer: a("web.demo."+eu, "2001:db8::1")},
		// A zone: endpoints in it, and load balancers in each zone of their cluster.
		{Qname: "web.demo." + eu1a, Qtype: dns.TypeA, Answer: a("web.demo."+eu1a, "192.0.2.1", "198.51.100.1")},
		{Qname: "web.demo." + eu1a, Qtype: dns.TypeAAAA, Answer: a("web.demo."+eu1a, "2001:db8::1")},
		{Qname: "web.demo." + eu1b, Qtype: dns.TypeA, Answer: a("web.demo."+eu1b, "192.0.2.2")},
		// Labels are matched case-insensitively; the owner is as asked.
		{Qname: "web.demo." + usw, Qtype: dns.TypeA, Answer: a("web.demo."+usw, "203.0.113.1")},
		{Qname: "WEB.demo.fed.svc.US-WEST-1A.us-west.cluster.local.", Qtype: dns.TypeA,
			Answer: a("WEB.demo.fed.svc.US-WEST-1A.us-west.cluster.local.", "203.0.113.1")},
		// Per-cluster names of a place, the targets of its SRV records.
		{Qname: "web.demo.c1." + eu1a, Qtype: dns.TypeA, Answer: a("web.demo.c1."+eu1a, "192.0.2.1")},
		{Qname: "_http._tcp.web.demo." + eu1a, Qtype: dns.TypeSRV,
			Answer: []dns.RR{
				test.SRV("_http._tcp.web.demo." + eu1a + " 5 IN SRV 0 50 31080 web.demo.c1." + eu1a),
				test.SRV("_http._tcp.web.demo." + eu1a + " 5 IN SRV 0 50 80 web.demo.c2." + eu1a)},
			Extra: append(a("web.demo.c1."+eu1a, "192.0.2.1"), a("web.demo.c2."+eu1a, "198.51.100.1", "2001:db8::1")...)},
		// The whole federation keeps the cluster-set IPs.
		{Qname: "web.demo." + whole, Qtype: dns.TypeA, Answer: a("web.demo."+whole, "10.96.0.10")},
		{Qname: "down.demo." + whole, Qtype: dns.TypeA, Answer: a("down.demo."+whole, "10.96.0.11")},
		// NODATA: a type without records, the place's apex and a namespace with imports.
		{Qname: "web.demo." + usw, Qtype: dns.TypeAAAA, Ns: soa(usw)},
		{Qname: "web.demo." + eu, Qtype: dns.TypeTXT, Ns: soa(eu)},
		{Qname: eu1a, Qtype: dns.TypeA, Ns: soa(eu1a)},
		{Qname: eu1a, Qtype: dns.TypeSOA, Answer: soa(eu1a)},
		{Qname: "demo." + eu, Qtype: dns.TypeA, Ns: soa(eu)},
		// NXDOMAIN: a place without ready endpoints of the Service, an unknown
		// Service or namespace, a cluster outside the place, a zone of another
		// region, an SRV name without endpoints there.
		{Qname: "web.demo.fed.svc.eu-1c.eu.cluster.local.", Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: soa("fed.svc.eu-1c.eu.cluster.local.")},
		{Qname: "web.demo.fed.svc.ap.cluster.local.", Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: soa("fed.svc.ap.cluster.local.")},
		{Qname: "web.demo.fed.svc.eu-1a.us-west.cluster.local.", Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: soa("fed.svc.eu-1a.us-west.cluster.local.")},
		{Qname: "down.demo." + eu, Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: soa(eu)},
		{Qname: "nope.demo." + eu, Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: soa(eu)},
		{Qname: "other." + eu, Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: soa(eu)},
		{Qname: "web.demo.c3." + eu, Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: soa(eu)},
		{Qname: "_http._tcp.web.demo.fed.svc.ap.cluster.local.", Qtype: dns.TypeSRV, Rcode: dns.RcodeNameError, Ns: soa("fed.svc.ap.cluster.local.")},
		// No form of a federation name: the next plugin's.
		{Qname: "web.demo.fed.svc.a.b.c.cluster.local.", Qtype: dns.TypeA, Rcode: passed},
	})
}

// TestPlaceNamesIgnorePreferClose: a place name holds every ready endpoint
// in the place, whatever the client's own place.
func TestPlaceNamesIgnorePreferClose(t *testing.T) {
	const owner = "near.demo.fed.svc.eu.cluster.local."
	runFrom(t, newTestPlugin(localityFixture()), "10.244.1.7", []test.Case{
		{Qname: owner, Qtype: dns.TypeA, Answer: []dns.RR{test.A(owner + " 5 IN A 10.1.0.1"), test.A(owner + " 5 IN A 10.1.0.2"),
			test.A(owner + " 5 IN A 10.2.0.1"), test.A(owner + " 5 IN A 10.2.0.3")}},
	})
}
