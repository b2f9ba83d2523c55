package fedplugin

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"github.com/coredns/coredns/plugin/file"
	"github.com/coredns/coredns/plugin/test"
	"github.com/miekg/dns"

	"antreaplus.io/antreaplus/pkg/dns/importcache"
)

// benchServices is how many imported Services the benchmarks serve.
const benchServices = 10000

// benchData fills an Index with n Services, each with a cluster-set IP and
// two ready endpoints in each of c1 and c2, and returns their federation
// names and the same records as a zone file.
func benchData(n int) (*fakeSource, []string, string) {
	x := importcache.NewIndex()
	var names []string
	var zone strings.Builder
	zone.WriteString("$ORIGIN cluster.local.\n$TTL 5\n@ IN SOA ns.dns hostmaster 1 7200 1800 86400 5\n@ IN NS ns.dns\nns.dns IN A 127.0.0.1\n")
	http := []importcache.Port{port("http", 80)}
	for i := range n {
		ns, svc := fmt.Sprintf("ns-%d", i%100), fmt.Sprintf("svc-%d", i)
		vip := netip.AddrFrom4([4]byte{10, 100, byte(i >> 8), byte(i)})
		x.SetImport(newImport(ns, svc, ips(vip.String()), ports(http...)))
		name := svc + "." + ns + ".fed.svc.cluster.local."
		names = append(names, name)
		fmt.Fprintf(&zone, "%s IN A %s\n", name, vip)
		for c, id := range []string{"c1", "c2"} {
			a := netip.AddrFrom4([4]byte{byte(172 + c), 16, byte(i >> 8), byte(i)})
			b := netip.AddrFrom4([4]byte{byte(172 + c), 17, byte(i >> 8), byte(i)})
			x.SetSlice(nil, newSlice(ns, svc, id, http, ep("", a.String()), ep("", b.String())))
			cname := svc + "." + ns + "." + id + ".fed.svc.cluster.local."
			names = append(names, cname)
			fmt.Fprintf(&zone, "%s IN A %s\n%s IN A %s\n", cname, a, cname, b)
		}
	}
	return &fakeSource{Index: x, fed: "fed", synced: true}, names, zone.String()
}

// BenchmarkServeDNS answers A queries for federation names in process, by
// this plugin and, as the baseline, by the stock file plugin holding the
// same records. No network: the cost of the plugins alone.
func BenchmarkServeDNS(b *testing.B) {
	src, names, zone := benchData(benchServices)
	z, err := file.Parse(strings.NewReader(zone), "cluster.local.", "bench", 0)
	if err != nil {
		b.Fatal(err)
	}
	msgs := make([]*dns.Msg, len(names))
	for i, n := range names {
		msgs[i] = new(dns.Msg).SetQuestion(n, dns.TypeA)
	}
	ours := newTestPlugin(src)
	stock := file.File{Zones: file.Zones{Z: map[string]*file.Zone{"cluster.local.": z}, Names: []string{"cluster.local."}}}
	for _, h := range []struct {
		name string
		h    interface {
			ServeDNS(context.Context, dns.ResponseWriter, *dns.Msg) (int, error)
		}
	}{{"federation", ours}, {"file", stock}} {
		b.Run(h.name, func(b *testing.B) {
			ctx, w := b.Context(), &test.ResponseWriter{}
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for b.Loop() {
				if rcode, err := h.h.ServeDNS(ctx, w, msgs[rng.IntN(len(msgs))]); err != nil || rcode != dns.RcodeSuccess {
					b.Fatalf("rcode %d, %v", rcode, err)
				}
			}
		})
	}
}
