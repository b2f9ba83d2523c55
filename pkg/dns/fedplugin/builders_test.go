package fedplugin

import (
	"net/netip"

	"antreaplus.io/antreaplus/pkg/dns/importcache"
)

// fakeSource is a Source over an Index filled by the test.
type fakeSource struct {
	*importcache.Index
	fed, cluster string
	synced       bool
}

func (s *fakeSource) FederationID() string { return s.fed }
func (s *fakeSource) ClusterID() string    { return s.cluster }
func (s *fakeSource) HasSynced() bool      { return s.synced }

func addrs(ips ...string) []netip.Addr {
	out := make([]netip.Addr, 0, len(ips))
	for _, ip := range ips {
		out = append(out, netip.MustParseAddr(ip))
	}
	return out
}

func port(name string, p int32) importcache.Port {
	return importcache.Port{Name: name, Protocol: "TCP", Port: p}
}

func ep(host string, ips ...string) importcache.Endpoint {
	return importcache.Endpoint{Hostname: host, Addrs: addrs(ips...)}
}

type importOpt func(*importcache.Import)

func headless(i *importcache.Import) { i.Headless = true }

func ips(a ...string) importOpt { return func(i *importcache.Import) { i.IPs = addrs(a...) } }

func ports(p ...importcache.Port) importOpt { return func(i *importcache.Import) { i.Ports = p } }

func newImport(ns, name string, opts ...importOpt) *importcache.Import {
	i := &importcache.Import{Namespace: ns, Name: name}
	for _, o := range opts {
		o(i)
	}
	return i
}

func newSlice(ns, svc, cluster string, p []importcache.Port, eps ...importcache.Endpoint) *importcache.Slice {
	return &importcache.Slice{Namespace: ns, Name: svc + "-" + cluster, Service: svc, Cluster: cluster, Ports: p, Endpoints: eps}
}

// fixture is a member importing:
//
//	web      ClusterSetIP 10.96.0.10, fd00::10; ports http/80 and an unnamed 8080;
//	         from c1 through a NodePort (192.0.2.1:31080) and c2 through a LoadBalancer (198.51.100.1:80)
//	db       Headless, port sql/5432; c1: db-0 192.0.2.11 and an unnamed 192.0.2.13;
//	         c2: db-0 198.51.100.5 and, in an IPv6 slice, 2001:db8::5
//	empty    Headless, c1 without ready endpoints
//	hello    ClusterSetIP 10.96.0.42, ports tcp/42/TCP and udp/42/UDP (mcs-api conformance)
//	hello-h  the same ports, Headless, c1: hello-0 192.0.2.42 and an unnamed 192.0.2.43
//	vipless  ClusterSetIP without an IP yet, c1: 192.0.2.30
func fixture() *fakeSource {
	x := importcache.NewIndex()
	http := []importcache.Port{port("http", 80)}
	x.SetImport(newImport("demo", "web", ips("10.96.0.10", "fd00::10"), ports(port("http", 80), port("", 8080))))
	x.SetSlice(nil, newSlice("demo", "web", "c1", []importcache.Port{port("http", 31080)}, ep("", "192.0.2.1")))
	x.SetSlice(nil, newSlice("demo", "web", "c2", http, ep("lb", "198.51.100.1")))
	sql := []importcache.Port{port("sql", 5432)}
	x.SetImport(newImport("demo", "db", headless, ports(sql...)))
	x.SetSlice(nil, newSlice("demo", "db", "c1", sql, ep("db-0", "192.0.2.11"), ep("", "192.0.2.13")))
	x.SetSlice(nil, newSlice("demo", "db", "c2", sql, ep("db-0", "198.51.100.5")))
	v6 := newSlice("demo", "db", "c2", sql, ep("db-0", "2001:db8::5"))
	v6.Name += "-v6"
	x.SetSlice(nil, v6)
	x.SetImport(newImport("demo", "empty", headless, ports(sql...)))
	x.SetSlice(nil, newSlice("demo", "empty", "c1", sql))
	// The conformance tests' hello: two named ports of the same number.
	hello := []importcache.Port{port("tcp", 42), {Name: "udp", Protocol: "UDP", Port: 42}}
	x.SetImport(newImport("demo", "hello", ips("10.96.0.42"), ports(hello...)))
	x.SetImport(newImport("demo", "hello-h", headless, ports(hello...)))
	x.SetSlice(nil, newSlice("demo", "hello-h", "c1", hello, ep("hello-0", "192.0.2.42"), ep("", "192.0.2.43")))
	x.SetImport(newImport("demo", "vipless", ports(http...)))
	x.SetSlice(nil, newSlice("demo", "vipless", "c1", http, ep("", "192.0.2.30")))
	return &fakeSource{Index: x, fed: "fed", synced: true}
}

func preferClose(i *importcache.Import) { i.PreferClose = true }

// zoned is an endpoint in a zone.
func zoned(zone, host string, ips ...string) importcache.Endpoint {
	e := ep(host, ips...)
	e.Zone = zone
	return e
}

// inRegion sets the source cluster's region of a slice.
func inRegion(region string, s *importcache.Slice) *importcache.Slice {
	s.Region = region
	return s
}

// node is a Node of the member in a zone and region, with a pod CIDR and an address.
func node(name, zone, region, podCIDR, addr string) *importcache.Node {
	return &importcache.Node{Name: name, Zone: zone, Region: region,
		PodCIDRs: []netip.Prefix{netip.MustParsePrefix(podCIDR)}, Addrs: addrs(addr)}
}
