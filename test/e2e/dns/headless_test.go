package dns

import (
	"testing"

	"github.com/miekg/dns"
	"k8s.io/utils/ptr"
)

// TestHeadlessStatefulSets checks a headless import whose endpoints are
// two StatefulSets' Pods (hostnames cass-0 and cass-1) in two source
// clusters, each with an IPv4 and an IPv6 slice: every ready Pod under the
// Service name, each one under its own name in both families, SRV and PTR
// of both, under clusterset.local and the federation names.
func TestHeadlessStatefulSets(t *testing.T) {
	ensureMembership(t)
	s := startServer(t, "")
	ns := clusters.Namespace(t, member)
	c2 := endpointSlice(ns, "cass", "c2", slicePort("cql", 9042), endpoint("cass-0", "198.51.100.101"), notReady("cass-1", "198.51.100.102"))
	create(t,
		serviceImport(ns, "cass", headless, withPorts(servicePort("cql", 9042))),
		endpointSlice(ns, "cass", "c1", slicePort("cql", 9042), endpoint("cass-0", "192.0.2.101"), endpoint("cass-1", "192.0.2.102")),
		endpointSlice(ns, "cass", "c1", ipv6, slicePort("cql", 9042), endpoint("cass-0", "2001:db8:1::101"), endpoint("cass-1", "2001:db8:1::102")),
		c2,
		endpointSlice(ns, "cass", "c2", ipv6, slicePort("cql", 9042), endpoint("cass-0", "2001:db8:2::101")))
	name := "cass." + ns + ".svc.clusterset.local."

	s.expect(t, name, dns.TypeA, dns.RcodeSuccess, "192.0.2.101", "192.0.2.102", "198.51.100.101")
	s.expect(t, name, dns.TypeAAAA, dns.RcodeSuccess, "2001:db8:1::101", "2001:db8:1::102", "2001:db8:2::101")
	for host, addrs := range map[string][2]string{
		"cass-0.c1.": {"192.0.2.101", "2001:db8:1::101"},
		"cass-1.c1.": {"192.0.2.102", "2001:db8:1::102"},
		"cass-0.c2.": {"198.51.100.101", "2001:db8:2::101"},
	} {
		s.expect(t, host+name, dns.TypeA, dns.RcodeSuccess, addrs[0])
		s.expect(t, host+name, dns.TypeAAAA, dns.RcodeSuccess, addrs[1])
	}
	s.expect(t, "cass-1.c2."+name, dns.TypeA, dns.RcodeNameError) // not ready
	s.expect(t, "cass-0.c3."+name, dns.TypeA, dns.RcodeNameError)
	s.expect(t, "_cql._tcp."+name, dns.TypeSRV, dns.RcodeSuccess,
		"0 33 9042 cass-0.c1."+name, "0 33 9042 cass-1.c1."+name, "0 33 9042 cass-0.c2."+name)
	s.expect(t, reverse("2001:db8:1::102"), dns.TypePTR, dns.RcodeSuccess, "cass-1.c1."+name)
	s.expect(t, "101.100.51.198.in-addr.arpa.", dns.TypePTR, dns.RcodeSuccess, "cass-0.c2."+name)

	fed := "cass." + ns + "." + federationID + ".svc.cluster.local."
	s.expect(t, fed, dns.TypeAAAA, dns.RcodeSuccess, "2001:db8:1::101", "2001:db8:1::102", "2001:db8:2::101")
	s.expect(t, "cass."+ns+".c2."+federationID+".svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "198.51.100.101")

	// cass-1 of c2 becomes ready: its name appears.
	c2.Endpoints[1].Conditions.Ready = ptr.To(true)
	update(t, c2)
	s.expect(t, "cass-1.c2."+name, dns.TypeA, dns.RcodeSuccess, "198.51.100.102")
	s.expect(t, "_cql._tcp."+name, dns.TypeSRV, dns.RcodeSuccess,
		"0 25 9042 cass-0.c1."+name, "0 25 9042 cass-1.c1."+name, "0 25 9042 cass-0.c2."+name, "0 25 9042 cass-1.c2."+name)
}
