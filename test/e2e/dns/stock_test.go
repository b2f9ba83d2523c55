package dns

import (
	"testing"

	"github.com/miekg/dns"
)

// TestStockMulticluster records, against the same objects, what stock
// CoreDNS's kubernetes plugin (multicluster clusterset.local, reading
// ServiceImport v1alpha1) answers right, as the federation plugin (which
// answers the whole zone) does, and where the two differ. When a CoreDNS
// upgrade fixes a gap, this test says so.
func TestStockMulticluster(t *testing.T) {
	stock, ours := startStock(t), startServer(t, "fed")
	ns := clusters.Namespace(t, member)
	create(t,
		serviceImport(ns, "web", withIPs("10.96.205.10", "fd00::205:10"), withPorts(servicePort("http", 80), servicePort("", 8080))),
		endpointSlice(ns, "web", "c1", slicePort("http", 80), endpoint("web-0", "192.0.2.71")),
		serviceImport(ns, "db", headless, withPorts(servicePort("sql", 5432))),
		endpointSlice(ns, "db", "c1", slicePort("sql", 5432), endpoint("db-0", "192.0.2.81"), notReady("db-1", "192.0.2.82")))
	web, db := "web."+ns+".svc.clusterset.local.", "db."+ns+".svc.clusterset.local."

	// Right in stock, answered alike: the v1beta1 objects read through v1alpha1 (same schema in mcs-api v0.5.2).
	for _, s := range []*server{stock, ours} {
		s.expect(t, web, dns.TypeA, dns.RcodeSuccess, "10.96.205.10")
		s.expect(t, web, dns.TypeAAAA, dns.RcodeSuccess, "fd00::205:10")
		s.expect(t, "_http._udp."+web, dns.TypeSRV, dns.RcodeNameError)
		s.expect(t, db, dns.TypeA, dns.RcodeSuccess, "192.0.2.81")
		s.expect(t, "db-0.c1."+db, dns.TypeA, dns.RcodeSuccess, "192.0.2.81")
		s.expect(t, "db-1.c1."+db, dns.TypeA, dns.RcodeNameError)
		s.expect(t, "c1."+db, dns.TypeA, dns.RcodeNameError)
		s.expect(t, "_sql._tcp."+db, dns.TypeSRV, dns.RcodeSuccess, "0 100 5432 db-0.c1."+db)
	}

	// Weights are not prescribed (2.3.2): stock shares 100 among the A and
	// AAAA records it found, ours among the SRV records.
	stock.expect(t, "_http._tcp."+web, dns.TypeSRV, dns.RcodeSuccess, "0 50 80 "+web)
	ours.expect(t, "_http._tcp."+web, dns.TypeSRV, dns.RcodeSuccess, "0 100 80 "+web)

	// Wrong or missing in stock, right in ours.
	stock.expect(t, "dns-version.clusterset.local.", dns.TypeTXT, dns.RcodeSuccess, `"1.1.0"`)
	ours.expect(t, "dns-version.clusterset.local.", dns.TypeTXT, dns.RcodeSuccess, `"1.0.0"`)
	stock.expect(t, web, dns.TypeSRV, dns.RcodeSuccess, "0 25 80 "+web, "0 25 8080 "+web)
	ours.expect(t, web, dns.TypeSRV, dns.RcodeSuccess, "0 100 80 "+web)
	stock.expect(t, "web-0.c1."+web, dns.TypeA, dns.RcodeSuccess, "192.0.2.71")
	ours.expect(t, "web-0.c1."+web, dns.TypeA, dns.RcodeNameError)
	// Stock has no multicluster PTR: the query falls off the end of the chain.
	stock.expect(t, "81.2.0.192.in-addr.arpa.", dns.TypePTR, dns.RcodeServerFailure)
	ours.expect(t, "81.2.0.192.in-addr.arpa.", dns.TypePTR, dns.RcodeSuccess, "db-0.c1."+db)
}
