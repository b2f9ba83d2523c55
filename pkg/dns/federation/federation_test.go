package federation

import (
	"context"
	"testing"

	"github.com/coredns/coredns/plugin/pkg/dnstest"
	"github.com/coredns/coredns/plugin/test"
	"github.com/miekg/dns"
)

// passed is the rcode the next plugin returns in these tests: the query
// went on to the kubernetes plugin.
const passed = dns.RcodeNotZone

func newTestPlugin(src Source) *Federation {
	f := New(src)
	f.Zones = []string{"cluster.local."}
	f.Next = test.NextHandler(passed, nil)
	return f
}

func run(t *testing.T, f *Federation, cases []test.Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(dns.TypeToString[tc.Qtype]+" "+tc.Qname, func(t *testing.T) {
			w := dnstest.NewRecorder(&test.ResponseWriter{})
			rcode, err := f.ServeDNS(context.Background(), w, tc.Msg())
			if err != nil {
				t.Fatal(err)
			}
			if tc.Rcode == passed || tc.Rcode == dns.RcodeServerFailure {
				if rcode != tc.Rcode || w.Msg != nil {
					t.Fatalf("rcode %s (wrote %v), want %s and nothing written", dns.RcodeToString[rcode], w.Msg != nil, dns.RcodeToString[tc.Rcode])
				}
				return
			}
			if w.Msg == nil {
				t.Fatalf("nothing written, rcode %s", dns.RcodeToString[rcode])
			}
			if err := test.SortAndCheck(w.Msg, tc); err != nil {
				t.Fatal(err)
			}
		})
	}
}

const soaFed = "fed.svc.cluster.local. 5 IN SOA ns.dns.fed.svc.cluster.local. hostmaster.fed.svc.cluster.local. 0 7200 1800 86400 5"

func TestFederationNames(t *testing.T) {
	src := fixture()
	f := newTestPlugin(src)
	soa := test.SOA(soaFed)
	soa.Serial = src.Serial()
	run(t, f, []test.Case{
		{Qname: "web.demo.fed.svc.cluster.local.", Qtype: dns.TypeA,
			Answer: []dns.RR{test.A("web.demo.fed.svc.cluster.local. 5 IN A 10.96.0.10")}},
		{Qname: "web.demo.fed.svc.cluster.local.", Qtype: dns.TypeAAAA,
			Answer: []dns.RR{test.AAAA("web.demo.fed.svc.cluster.local. 5 IN AAAA fd00::10")}},
		{Qname: "WEB.Demo.FED.svc.cluster.local.", Qtype: dns.TypeA,
			Answer: []dns.RR{test.A("WEB.Demo.FED.svc.cluster.local. 5 IN A 10.96.0.10")}},
		{Qname: "web.demo.c1.fed.svc.cluster.local.", Qtype: dns.TypeA,
			Answer: []dns.RR{test.A("web.demo.c1.fed.svc.cluster.local. 5 IN A 192.0.2.1")}},
		{Qname: "web.demo.c1.fed.svc.cluster.local.", Qtype: dns.TypeAAAA, Ns: []dns.RR{soa}},
		{Qname: "web.demo.c3.fed.svc.cluster.local.", Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: []dns.RR{soa}},
		{Qname: "_http._tcp.web.demo.fed.svc.cluster.local.", Qtype: dns.TypeSRV,
			Answer: []dns.RR{test.SRV("_http._tcp.web.demo.fed.svc.cluster.local. 5 IN SRV 0 100 80 web.demo.fed.svc.cluster.local.")},
			Extra: []dns.RR{test.A("web.demo.fed.svc.cluster.local. 5 IN A 10.96.0.10"),
				test.AAAA("web.demo.fed.svc.cluster.local. 5 IN AAAA fd00::10")}},
		{Qname: "web.demo.fed.svc.cluster.local.", Qtype: dns.TypeSRV,
			Answer: []dns.RR{test.SRV("web.demo.fed.svc.cluster.local. 5 IN SRV 0 100 80 web.demo.fed.svc.cluster.local.")},
			Extra: []dns.RR{test.A("web.demo.fed.svc.cluster.local. 5 IN A 10.96.0.10"),
				test.AAAA("web.demo.fed.svc.cluster.local. 5 IN AAAA fd00::10")}},
		{Qname: "_http._tcp.web.demo.c1.fed.svc.cluster.local.", Qtype: dns.TypeSRV,
			Answer: []dns.RR{test.SRV("_http._tcp.web.demo.c1.fed.svc.cluster.local. 5 IN SRV 0 100 31080 web.demo.c1.fed.svc.cluster.local.")},
			Extra:  []dns.RR{test.A("web.demo.c1.fed.svc.cluster.local. 5 IN A 192.0.2.1")}},
		{Qname: "_http._udp.web.demo.fed.svc.cluster.local.", Qtype: dns.TypeSRV, Rcode: dns.RcodeNameError, Ns: []dns.RR{soa}},
		{Qname: "_http._tcp.web.demo.fed.svc.cluster.local.", Qtype: dns.TypeA, Ns: []dns.RR{soa}},
		{Qname: "db.demo.fed.svc.cluster.local.", Qtype: dns.TypeA, Answer: []dns.RR{
			test.A("db.demo.fed.svc.cluster.local. 5 IN A 192.0.2.11"),
			test.A("db.demo.fed.svc.cluster.local. 5 IN A 192.0.2.13"),
			test.A("db.demo.fed.svc.cluster.local. 5 IN A 198.51.100.5")}},
		{Qname: "_sql._tcp.db.demo.fed.svc.cluster.local.", Qtype: dns.TypeSRV, Answer: []dns.RR{
			test.SRV("_sql._tcp.db.demo.fed.svc.cluster.local. 5 IN SRV 0 50 5432 db.demo.c1.fed.svc.cluster.local."),
			test.SRV("_sql._tcp.db.demo.fed.svc.cluster.local. 5 IN SRV 0 50 5432 db.demo.c2.fed.svc.cluster.local.")},
			Extra: []dns.RR{
				test.A("db.demo.c1.fed.svc.cluster.local. 5 IN A 192.0.2.11"),
				test.A("db.demo.c1.fed.svc.cluster.local. 5 IN A 192.0.2.13"),
				test.A("db.demo.c2.fed.svc.cluster.local. 5 IN A 198.51.100.5")}},
		{Qname: "empty.demo.fed.svc.cluster.local.", Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: []dns.RR{soa}},
		{Qname: "empty.demo.c1.fed.svc.cluster.local.", Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: []dns.RR{soa}},
		{Qname: "vipless.demo.fed.svc.cluster.local.", Qtype: dns.TypeA,
			Answer: []dns.RR{test.A("vipless.demo.fed.svc.cluster.local. 5 IN A 192.0.2.30")}},
		{Qname: "nothere.demo.fed.svc.cluster.local.", Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: []dns.RR{soa}},
		{Qname: "web.demo.fed.svc.cluster.local.", Qtype: dns.TypeTXT, Ns: []dns.RR{soa}},
		{Qname: "demo.fed.svc.cluster.local.", Qtype: dns.TypeA, Ns: []dns.RR{soa}},
		{Qname: "fed.svc.cluster.local.", Qtype: dns.TypeA, Ns: []dns.RR{soa}},
		{Qname: "other.fed.svc.cluster.local.", Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: []dns.RR{soa}},
		{Qname: "web.demo.otherfed.svc.cluster.local.", Qtype: dns.TypeA, Rcode: passed},
		{Qname: "example.org.", Qtype: dns.TypeA, Rcode: passed},
	})
}

func TestClustersetCorrections(t *testing.T) {
	src := fixture()
	f := newTestPlugin(src)
	soa := test.SOA("clusterset.local. 5 IN SOA ns.dns.clusterset.local. hostmaster.clusterset.local. 0 7200 1800 86400 5")
	soa.Serial = src.Serial()
	run(t, f, []test.Case{
		{Qname: "dns-version.clusterset.local.", Qtype: dns.TypeTXT,
			Answer: []dns.RR{test.TXT(`dns-version.clusterset.local. 28800 IN TXT "1.0.0"`)}},
		{Qname: "web.demo.svc.clusterset.local.", Qtype: dns.TypeA, Rcode: passed},
		{Qname: "web.demo.svc.clusterset.local.", Qtype: dns.TypeSRV,
			Answer: []dns.RR{test.SRV("web.demo.svc.clusterset.local. 5 IN SRV 0 100 80 web.demo.svc.clusterset.local.")},
			Extra: []dns.RR{test.A("web.demo.svc.clusterset.local. 5 IN A 10.96.0.10"),
				test.AAAA("web.demo.svc.clusterset.local. 5 IN AAAA fd00::10")}},
		{Qname: "lb.c2.web.demo.svc.clusterset.local.", Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: []dns.RR{soa}},
		{Qname: "db-0.c1.db.demo.svc.clusterset.local.", Qtype: dns.TypeA, Rcode: passed},
		{Qname: "db.demo.svc.clusterset.local.", Qtype: dns.TypeSRV, Answer: []dns.RR{
			test.SRV("db.demo.svc.clusterset.local. 5 IN SRV 0 33 5432 192-0-2-13.c1.db.demo.svc.clusterset.local."),
			test.SRV("db.demo.svc.clusterset.local. 5 IN SRV 0 33 5432 db-0.c1.db.demo.svc.clusterset.local."),
			test.SRV("db.demo.svc.clusterset.local. 5 IN SRV 0 33 5432 db-0.c2.db.demo.svc.clusterset.local.")},
			Extra: []dns.RR{
				test.A("192-0-2-13.c1.db.demo.svc.clusterset.local. 5 IN A 192.0.2.13"),
				test.A("db-0.c1.db.demo.svc.clusterset.local. 5 IN A 192.0.2.11"),
				test.A("db-0.c2.db.demo.svc.clusterset.local. 5 IN A 198.51.100.5")}},
		{Qname: "empty.demo.svc.clusterset.local.", Qtype: dns.TypeSRV, Rcode: dns.RcodeNameError, Ns: []dns.RR{soa}},
		{Qname: "_sql._tcp.db.demo.svc.clusterset.local.", Qtype: dns.TypeSRV, Rcode: passed},
		{Qname: "nothere.demo.svc.clusterset.local.", Qtype: dns.TypeSRV, Rcode: passed},
		{Qname: "10.0.96.10.in-addr.arpa.", Qtype: dns.TypePTR,
			Answer: []dns.RR{test.PTR("10.0.96.10.in-addr.arpa. 5 IN PTR web.demo.svc.clusterset.local.")}},
		{Qname: "5.100.51.198.in-addr.arpa.", Qtype: dns.TypePTR,
			Answer: []dns.RR{test.PTR("5.100.51.198.in-addr.arpa. 5 IN PTR db-0.c2.db.demo.svc.clusterset.local.")}},
		{Qname: "1.2.0.192.in-addr.arpa.", Qtype: dns.TypePTR, Rcode: passed},
	})
	f.ReverseZones = []string{"in-addr.arpa."}
	rsoa := test.SOA("in-addr.arpa. 5 IN SOA ns.dns.in-addr.arpa. hostmaster.in-addr.arpa. 0 7200 1800 86400 5")
	rsoa.Serial = src.Serial()
	run(t, f, []test.Case{
		{Qname: "1.2.0.192.in-addr.arpa.", Qtype: dns.TypePTR, Rcode: dns.RcodeNameError, Ns: []dns.RR{rsoa}},
	})
}

func TestNotSynced(t *testing.T) {
	src := fixture()
	src.synced = false
	run(t, newTestPlugin(src), []test.Case{
		{Qname: "nothere.demo.fed.svc.cluster.local.", Qtype: dns.TypeA, Rcode: dns.RcodeServerFailure},
		{Qname: "web.demo.fed.svc.cluster.local.", Qtype: dns.TypeA,
			Answer: []dns.RR{test.A("web.demo.fed.svc.cluster.local. 5 IN A 10.96.0.10")}},
	})
	src.synced, src.fed = true, ""
	run(t, newTestPlugin(src), []test.Case{
		{Qname: "web.demo.fed.svc.cluster.local.", Qtype: dns.TypeA, Rcode: dns.RcodeServerFailure},
	})
}
