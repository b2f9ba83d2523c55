package fedplugin

import (
	"net"
	"testing"

	"github.com/coredns/coredns/plugin/pkg/dnstest"
	"github.com/coredns/coredns/plugin/test"
	"github.com/miekg/dns"

	"antreaplus.io/antreaplus/pkg/dns/importcache"
)

// localityFixture is member m1, whose Nodes are in zones eu-1a, eu-1b and
// eu-1c of region eu, importing near (headless, PreferClose) and all (the
// same endpoints, without a preference):
//
//	m1 (eu): near-0 10.1.0.1 in eu-1a, near-1 10.1.0.2 in eu-1b
//	m2 (eu): 10.2.0.1 and 2001:db8::21 in eu-1a, 10.2.0.3 in eu-1c
//	m3 (us): 10.3.0.1 in us-1a
func localityFixture() *fakeSource {
	x := importcache.NewIndex()
	sql := []importcache.Port{port("sql", 5432)}
	for _, name := range []string{"near", "all"} {
		opts := []importOpt{headless, ports(sql...)}
		if name == "near" {
			opts = append(opts, preferClose)
		}
		x.SetImport(newImport("demo", name, opts...))
		x.SetSlice(nil, inRegion("eu", newSlice("demo", name, "m1", sql, zoned("eu-1a", "near-0", "10.1.0.1"), zoned("eu-1b", "near-1", "10.1.0.2"))))
		x.SetSlice(nil, inRegion("eu", newSlice("demo", name, "m2", sql, zoned("eu-1a", "", "10.2.0.1"), zoned("eu-1c", "", "10.2.0.3"))))
		v6 := inRegion("eu", newSlice("demo", name, "m2", sql, zoned("eu-1a", "", "2001:db8::21")))
		v6.Name += "-v6"
		x.SetSlice(nil, v6)
		x.SetSlice(nil, inRegion("us", newSlice("demo", name, "m3", sql, zoned("us-1a", "", "10.3.0.1"))))
	}
	x.Nodes().Set(node("node-a", "eu-1a", "eu", "10.244.1.0/24", "192.168.0.1"))
	x.Nodes().Set(node("node-b", "eu-1b", "eu", "10.244.2.0/24", "192.168.0.2"))
	x.Nodes().Set(node("node-c", "eu-1c", "eu", "10.244.3.0/24", "192.168.0.3"))
	return &fakeSource{Index: x, fed: "fed", cluster: "m1", synced: true}
}

// TestPreferClose checks that answers made of a PreferClose import's
// endpoints hold the closest tier for the client's place, and that
// per-cluster and per-endpoint names, and other imports, hold everything.
func TestPreferClose(t *testing.T) {
	const near, all = "near.demo.svc.clusterset.local.", "all.demo.svc.clusterset.local."
	const fedNear = "near.demo.fed.svc.cluster.local."
	a := func(name string, ips ...string) []dns.RR {
		var out []dns.RR
		for _, ip := range ips {
			if net.ParseIP(ip).To4() != nil {
				out = append(out, test.A(name+" 5 IN A "+ip))
			} else {
				out = append(out, test.AAAA(name+" 5 IN AAAA "+ip))
			}
		}
		return out
	}
	tests := []struct {
		name    string
		cluster string // overrides the member's cluster ID (Corefile cluster_id)
		client  string
		cases   []test.Case
	}{
		{name: "own cluster and zone (a Pod on node-a)", client: "10.244.1.7", cases: []test.Case{
			{Qname: near, Qtype: dns.TypeA, Answer: a(near, "10.1.0.1")},
			// A and AAAA hold the same endpoints: the closest has no IPv6 address.
			{Qname: near, Qtype: dns.TypeAAAA, Ns: []dns.RR{test.SOA(soaClusterset)}},
			{Qname: all, Qtype: dns.TypeA, Answer: a(all, "10.1.0.1", "10.1.0.2", "10.2.0.1", "10.2.0.3", "10.3.0.1")},
			{Qname: "near-1.m1." + near, Qtype: dns.TypeA, Answer: a("near-1.m1."+near, "10.1.0.2")},
			{Qname: "_sql._tcp." + near, Qtype: dns.TypeSRV,
				Answer: []dns.RR{test.SRV("_sql._tcp." + near + " 5 IN SRV 0 100 5432 near-0.m1." + near)},
				Extra:  a("near-0.m1."+near, "10.1.0.1")},
			{Qname: fedNear, Qtype: dns.TypeA, Answer: a(fedNear, "10.1.0.1")},
			{Qname: "near.demo.m2.fed.svc.cluster.local.", Qtype: dns.TypeA, Answer: a("near.demo.m2.fed.svc.cluster.local.", "10.2.0.1", "10.2.0.3")},
			{Qname: "_sql._tcp." + fedNear, Qtype: dns.TypeSRV,
				Answer: []dns.RR{test.SRV("_sql._tcp." + fedNear + " 5 IN SRV 0 100 5432 near.demo.m1.fed.svc.cluster.local.")},
				Extra:  a("near.demo.m1.fed.svc.cluster.local.", "10.1.0.1")},
		}},
		{name: "own cluster, a zone it has no endpoint in (node-c's address)", client: "192.168.0.3", cases: []test.Case{
			{Qname: near, Qtype: dns.TypeA, Answer: a(near, "10.1.0.1", "10.1.0.2")},
		}},
		{name: "another cluster's endpoints in the client's zone", cluster: "m4", client: "10.244.3.9", cases: []test.Case{
			{Qname: near, Qtype: dns.TypeA, Answer: a(near, "10.2.0.3")},
			{Qname: fedNear, Qtype: dns.TypeA, Answer: a(fedNear, "10.2.0.3")},
		}},
		{name: "dual-stack endpoints in the client's zone", cluster: "m4", client: "10.244.1.9", cases: []test.Case{
			{Qname: near, Qtype: dns.TypeA, Answer: a(near, "10.1.0.1", "10.2.0.1")},
			{Qname: near, Qtype: dns.TypeAAAA, Answer: a(near, "2001:db8::21")},
		}},
		{name: "an unknown client: the member's region", cluster: "m4", client: "172.16.0.1", cases: []test.Case{
			{Qname: near, Qtype: dns.TypeA, Answer: a(near, "10.1.0.1", "10.1.0.2", "10.2.0.1", "10.2.0.3")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := localityFixture()
			f := newTestPlugin(src)
			f.ClusterID = tt.cluster
			for _, c := range tt.cases {
				for _, rr := range c.Ns {
					rr.(*dns.SOA).Serial = src.Serial()
				}
			}
			runFrom(t, f, tt.client, tt.cases)
		})
	}

	// Nothing close: every endpoint.
	src := localityFixture()
	src.cluster = "m9"
	src.Nodes().Retain(nil)
	src.Nodes().Set(node("node-x", "ap-1a", "ap", "10.244.9.0/24", "192.168.9.1"))
	runFrom(t, newTestPlugin(src), "10.244.9.9", []test.Case{
		{Qname: near, Qtype: dns.TypeA, Answer: a(near, "10.1.0.1", "10.1.0.2", "10.2.0.1", "10.2.0.3", "10.3.0.1")},
	})
}

// runFrom runs the cases as queries from client.
func runFrom(t *testing.T, f *Federation, client string, cases []test.Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(dns.TypeToString[tc.Qtype]+" "+tc.Qname, func(t *testing.T) {
			w := dnstest.NewRecorder(&fromWriter{addr: &net.UDPAddr{IP: net.ParseIP(client), Port: 40000}})
			if _, err := f.ServeDNS(t.Context(), w, tc.Msg()); err != nil {
				t.Fatal(err)
			}
			if w.Msg == nil {
				t.Fatal("nothing written")
			}
			if err := test.SortAndCheck(w.Msg, tc); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// fromWriter is a ResponseWriter whose client is at addr.
type fromWriter struct {
	test.ResponseWriter
	addr net.Addr
}

func (w *fromWriter) RemoteAddr() net.Addr { return w.addr }
