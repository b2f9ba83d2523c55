package fedplugin

import (
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
			rcode, err := f.ServeDNS(t.Context(), w, tc.Msg())
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
				test.A("db.demo.c2.fed.svc.cluster.local. 5 IN A 198.51.100.5"),
				test.AAAA("db.demo.c2.fed.svc.cluster.local. 5 IN AAAA 2001:db8::5")}},
		{Qname: "empty.demo.fed.svc.cluster.local.", Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: []dns.RR{soa}},
		{Qname: "empty.demo.c1.fed.svc.cluster.local.", Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: []dns.RR{soa}},
		{Qname: "vipless.demo.fed.svc.cluster.local.", Qtype: dns.TypeA,
			Answer: []dns.RR{test.A("vipless.demo.fed.svc.cluster.local. 5 IN A 192.0.2.30")}},
		{Qname: "nothere.demo.fed.svc.cluster.local.", Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: []dns.RR{soa}},
		{Qname: "web.demo.fed.svc.cluster.local.", Qtype: dns.TypeTXT, Ns: []dns.RR{soa}},
		{Qname: "demo.fed.svc.cluster.local.", Qtype: dns.TypeA, Ns: []dns.RR{soa}},
		{Qname: "fed.svc.cluster.local.", Qtype: dns.TypeA, Ns: []dns.RR{soa}},
		{Qname: "fed.svc.cluster.local.", Qtype: dns.TypeSOA, Answer: []dns.RR{soa}},
		{Qname: "kubernetes.default.svc.cluster.local.", Qtype: dns.TypeA, Rcode: passed},
		{Qname: "other.fed.svc.cluster.local.", Qtype: dns.TypeA, Rcode: dns.RcodeNameError, Ns: []dns.RR{soa}},
		{Qname: "web.demo.otherfed.svc.cluster.local.", Qtype: dns.TypeA, Rcode: passed},
		{Qname: "example.org.", Qtype: dns.TypeA, Rcode: passed},
	})
}

const soaClusterset = "clusterset.local. 5 IN SOA ns.dns.clusterset.local. hostmaster.clusterset.local. 0 7200 1800 86400 5"

// TestClusterset checks every name and record type of KEP-1645's
// Multicluster DNS specification, with NXDOMAIN for names that do not
// exist and NODATA for names without records of the type asked.
func TestClusterset(t *testing.T) {
	src := fixture()
	f := newTestPlugin(src)
	soa := test.SOA(soaClusterset)
	soa.Serial = src.Serial()
	nx := func(name string, qtype uint16) test.Case {
		return test.Case{Qname: name, Qtype: qtype, Rcode: dns.RcodeNameError, Ns: []dns.RR{soa}}
	}
	nodata := func(name string, qtype uint16) test.Case {
		return test.Case{Qname: name, Qtype: qtype, Ns: []dns.RR{soa}}
	}
	const web, db = "web.demo.svc.clusterset.local.", "db.demo.svc.clusterset.local."
	run(t, f, []test.Case{
		// 2.2 and the zone's own nodes.
		{Qname: "dns-version.clusterset.local.", Qtype: dns.TypeTXT,
			Answer: []dns.RR{test.TXT(`dns-version.clusterset.local. 28800 IN TXT "1.0.0"`)}},
		nodata("dns-version.clusterset.local.", dns.TypeA),
		{Qname: "clusterset.local.", Qtype: dns.TypeSOA, Answer: []dns.RR{soa}},
		nodata("clusterset.local.", dns.TypeA),
		nodata("svc.clusterset.local.", dns.TypeA),
		nodata("demo.svc.clusterset.local.", dns.TypeA),
		nx("other.svc.clusterset.local.", dns.TypeA),
		nx("other.clusterset.local.", dns.TypeA),
		nx("web.demo.pod.clusterset.local.", dns.TypeA),
		// 2.3: ClusterSetIP.
		{Qname: web, Qtype: dns.TypeA, Answer: []dns.RR{test.A(web + " 5 IN A 10.96.0.10")}},
		{Qname: web, Qtype: dns.TypeAAAA, Answer: []dns.RR{test.AAAA(web + " 5 IN AAAA fd00::10")}},
		{Qname: "WEB.Demo.svc.clusterset.local.", Qtype: dns.TypeA, Answer: []dns.RR{test.A("WEB.Demo.svc.clusterset.local. 5 IN A 10.96.0.10")}},
		nodata(web, dns.TypeTXT),
		{Qname: web, Qtype: dns.TypeSRV,
			Answer: []dns.RR{test.SRV(web + " 5 IN SRV 0 100 80 " + web)},
			Extra:  []dns.RR{test.A(web + " 5 IN A 10.96.0.10"), test.AAAA(web + " 5 IN AAAA fd00::10")}},
		{Qname: "_http._tcp." + web, Qtype: dns.TypeSRV,
			Answer: []dns.RR{test.SRV("_http._tcp." + web + " 5 IN SRV 0 100 80 " + web)},
			Extra:  []dns.RR{test.A(web + " 5 IN A 10.96.0.10"), test.AAAA(web + " 5 IN AAAA fd00::10")}},
		nodata("_http._tcp."+web, dns.TypeA),
		nx("_http._udp."+web, dns.TypeSRV),
		nx("_x._tcp."+web, dns.TypeSRV),
		nx("c1."+web, dns.TypeA),    // 2.3.4
		nx("lb.c2."+web, dns.TypeA), // 2.3.4: stock answers the endpoint
		nodata("vipless.demo.svc.clusterset.local.", dns.TypeA),
		// 2.4: Headless.
		{Qname: db, Qtype: dns.TypeA, Answer: []dns.RR{
			test.A(db + " 5 IN A 192.0.2.11"), test.A(db + " 5 IN A 192.0.2.13"), test.A(db + " 5 IN A 198.51.100.5")}},
		{Qname: db, Qtype: dns.TypeAAAA, Answer: []dns.RR{test.AAAA(db + " 5 IN AAAA 2001:db8::5")}},
		{Qname: "db-0.c1." + db, Qtype: dns.TypeA, Answer: []dns.RR{test.A("db-0.c1." + db + " 5 IN A 192.0.2.11")}},
		{Qname: "DB-0.C2." + db, Qtype: dns.TypeA, Answer: []dns.RR{test.A("DB-0.C2." + db + " 5 IN A 198.51.100.5")}},
		{Qname: "192-0-2-13.c1." + db, Qtype: dns.TypeA, Answer: []dns.RR{test.A("192-0-2-13.c1." + db + " 5 IN A 192.0.2.13")}},
		nodata("db-0.c1."+db, dns.TypeAAAA),
		{Qname: "db-0.c2." + db, Qtype: dns.TypeAAAA, Answer: []dns.RR{test.AAAA("db-0.c2." + db + " 5 IN AAAA 2001:db8::5")}},
		nx("db-1.c1."+db, dns.TypeA),
		nx("db-0.c3."+db, dns.TypeA),
		nx("192-0-2-11.c1."+db, dns.TypeA), // db-0's name is its hostname
		nx("c1."+db, dns.TypeA),            // 2.4.4
		{Qname: db, Qtype: dns.TypeSRV, Answer: []dns.RR{
			test.SRV(db + " 5 IN SRV 0 33 5432 192-0-2-13.c1." + db),
			test.SRV(db + " 5 IN SRV 0 33 5432 db-0.c1." + db),
			test.SRV(db + " 5 IN SRV 0 33 5432 db-0.c2." + db)},
			Extra: []dns.RR{
				test.A("192-0-2-13.c1." + db + " 5 IN A 192.0.2.13"),
				test.A("db-0.c1." + db + " 5 IN A 192.0.2.11"),
				test.A("db-0.c2." + db + " 5 IN A 198.51.100.5"),
				test.AAAA("db-0.c2." + db + " 5 IN AAAA 2001:db8::5")}},
		{Qname: "_sql._tcp." + db, Qtype: dns.TypeSRV, Answer: []dns.RR{
			test.SRV("_sql._tcp." + db + " 5 IN SRV 0 33 5432 192-0-2-13.c1." + db),
			test.SRV("_sql._tcp." + db + " 5 IN SRV 0 33 5432 db-0.c1." + db),
			test.SRV("_sql._tcp." + db + " 5 IN SRV 0 33 5432 db-0.c2." + db)},
			Extra: []dns.RR{
				test.A("192-0-2-13.c1." + db + " 5 IN A 192.0.2.13"),
				test.A("db-0.c1." + db + " 5 IN A 192.0.2.11"),
				test.A("db-0.c2." + db + " 5 IN A 198.51.100.5"),
				test.AAAA("db-0.c2." + db + " 5 IN AAAA 2001:db8::5")}},
		nx("_sql._udp."+db, dns.TypeSRV),
		// mcs-api conformance: the bare name's SRV, identical records once.
		{Qname: "hello.demo.svc.clusterset.local.", Qtype: dns.TypeSRV,
			Answer: []dns.RR{test.SRV("hello.demo.svc.clusterset.local. 5 IN SRV 0 100 42 hello.demo.svc.clusterset.local.")},
			Extra:  []dns.RR{test.A("hello.demo.svc.clusterset.local. 5 IN A 10.96.0.42")}},
		{Qname: "_udp._udp.hello.demo.svc.clusterset.local.", Qtype: dns.TypeSRV,
			Answer: []dns.RR{test.SRV("_udp._udp.hello.demo.svc.clusterset.local. 5 IN SRV 0 100 42 hello.demo.svc.clusterset.local.")},
			Extra:  []dns.RR{test.A("hello.demo.svc.clusterset.local. 5 IN A 10.96.0.42")}},
		{Qname: "hello-h.demo.svc.clusterset.local.", Qtype: dns.TypeSRV, Answer: []dns.RR{
			test.SRV("hello-h.demo.svc.clusterset.local. 5 IN SRV 0 50 42 192-0-2-43.c1.hello-h.demo.svc.clusterset.local."),
			test.SRV("hello-h.demo.svc.clusterset.local. 5 IN SRV 0 50 42 hello-0.c1.hello-h.demo.svc.clusterset.local.")},
			Extra: []dns.RR{
				test.A("192-0-2-43.c1.hello-h.demo.svc.clusterset.local. 5 IN A 192.0.2.43"),
				test.A("hello-0.c1.hello-h.demo.svc.clusterset.local. 5 IN A 192.0.2.42")}},
		nx("empty.demo.svc.clusterset.local.", dns.TypeA), // 2.4.1: no ready endpoint
		nx("empty.demo.svc.clusterset.local.", dns.TypeSRV),
		nx("nothere.demo.svc.clusterset.local.", dns.TypeA),
		nx("nothere.demo.svc.clusterset.local.", dns.TypeSRV),
		// PTR (not required by schema 1.0.0).
		{Qname: "10.0.96.10.in-addr.arpa.", Qtype: dns.TypePTR,
			Answer: []dns.RR{test.PTR("10.0.96.10.in-addr.arpa. 5 IN PTR " + web)}},
		{Qname: "5.100.51.198.in-addr.arpa.", Qtype: dns.TypePTR,
			Answer: []dns.RR{test.PTR("5.100.51.198.in-addr.arpa. 5 IN PTR db-0.c2." + db)}},
		{Qname: "5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa.", Qtype: dns.TypePTR,
			Answer: []dns.RR{test.PTR("5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa. 5 IN PTR db-0.c2." + db)}},
		{Qname: "1.2.0.192.in-addr.arpa.", Qtype: dns.TypePTR, Rcode: passed},
		{Qname: "10.0.96.10.in-addr.arpa.", Qtype: dns.TypeA, Rcode: passed},
	})
	f.ReverseZones = []string{"in-addr.arpa."}
	rsoa := test.SOA("in-addr.arpa. 5 IN SOA ns.dns.in-addr.arpa. hostmaster.in-addr.arpa. 0 7200 1800 86400 5")
	rsoa.Serial = src.Serial()
	run(t, f, []test.Case{
		{Qname: "1.2.0.192.in-addr.arpa.", Qtype: dns.TypePTR, Rcode: dns.RcodeNameError, Ns: []dns.RR{rsoa}},
	})
	f.Fall.SetZonesFromArgs([]string{"clusterset.local."})
	run(t, f, []test.Case{
		{Qname: "nothere.demo.svc.clusterset.local.", Qtype: dns.TypeA, Rcode: passed},
		{Qname: web, Qtype: dns.TypeA, Answer: []dns.RR{test.A(web + " 5 IN A 10.96.0.10")}},
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
	src.fed = ""
	run(t, newTestPlugin(src), []test.Case{
		{Qname: "web.demo.fed.svc.cluster.local.", Qtype: dns.TypeA, Rcode: dns.RcodeServerFailure},
		{Qname: "nothere.demo.svc.clusterset.local.", Qtype: dns.TypeA, Rcode: dns.RcodeServerFailure},
	})
	// In no federation: cluster.local is the next plugin's (the member's own names).
	src.synced = true
	run(t, newTestPlugin(src), []test.Case{
		{Qname: "web.demo.fed.svc.cluster.local.", Qtype: dns.TypeA, Rcode: passed},
		{Qname: "kubernetes.default.svc.cluster.local.", Qtype: dns.TypeA, Rcode: passed},
	})
}
