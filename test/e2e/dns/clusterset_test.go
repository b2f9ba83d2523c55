package dns

import (
	"testing"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

// TestClusterSetIP checks the records of KEP-1645's DNS specification 2.2
// and 2.3 for a ClusterSetIP import.
func TestClusterSetIP(t *testing.T) {
	s := startServer(t, "fed")
	ns := clusters.Namespace(t, member)
	create(t,
		serviceImport(ns, "web", withIPs("10.96.200.10", "fd00::200:10"), withPorts(servicePort("http", 80), servicePort("", 8080))),
		endpointSlice(ns, "web", "c1", slicePort("http", 31080), endpoint("web-0", "192.0.2.1")))
	name := "web." + ns + ".svc.clusterset.local."

	s.expect(t, name, dns.TypeA, dns.RcodeSuccess, "10.96.200.10")
	s.expect(t, name, dns.TypeAAAA, dns.RcodeSuccess, "fd00::200:10")
	// Weights are not prescribed (2.3.2): 100 shared among the records.
	s.expect(t, "_http._tcp."+name, dns.TypeSRV, dns.RcodeSuccess, "0 100 80 "+name)
	s.expect(t, "_http._tcp."+name, dns.TypeA, dns.RcodeSuccess) // NODATA: the name exists
	s.expect(t, "_http._udp."+name, dns.TypeSRV, dns.RcodeNameError)
	// Unnamed ports have no SRV record (2.3.2); stock CoreDNS lists 8080 here.
	s.expect(t, name, dns.TypeSRV, dns.RcodeSuccess, "0 100 80 "+name)
	// No record singles out one cluster's backends (2.3.4); stock CoreDNS answers the endpoint name.
	s.expect(t, "c1."+name, dns.TypeA, dns.RcodeNameError)
	s.expect(t, "web-0.c1."+name, dns.TypeA, dns.RcodeNameError)
	// PTR of the cluster-set IP (not required by schema 1.0.0; answered).
	s.expect(t, "10.200.96.10.in-addr.arpa.", dns.TypePTR, dns.RcodeSuccess, name)
	// The schema version (2.2): stock CoreDNS answers the cluster-local 1.1.0.
	s.expect(t, "dns-version.clusterset.local.", dns.TypeTXT, dns.RcodeSuccess, `"1.0.0"`)
	s.expect(t, "dns-version.clusterset.local.", dns.TypeA, dns.RcodeSuccess) // NODATA
	s.expect(t, "nothere."+ns+".svc.clusterset.local.", dns.TypeA, dns.RcodeNameError)
	s.expect(t, "nothere."+ns+".svc.clusterset.local.", dns.TypeSRV, dns.RcodeNameError)
	s.expect(t, name, dns.TypeTXT, dns.RcodeSuccess)                               // NODATA
	s.expect(t, ns+".svc.clusterset.local.", dns.TypeA, dns.RcodeSuccess)          // the namespace node
	s.expect(t, "web."+ns+".pod.clusterset.local.", dns.TypeA, dns.RcodeNameError) // no Pod names
	// mcs-api conformance's hello: tcp/42 and udp/42 make one SRV record of the bare name.
	udp := mcsv1beta1.ServicePort{Name: "udp", Protocol: corev1.ProtocolUDP, Port: 42}
	create(t, serviceImport(ns, "hello", withIPs("10.96.200.42"), withPorts(servicePort("tcp", 42), udp)))
	hello := "hello." + ns + ".svc.clusterset.local."
	s.expect(t, hello, dns.TypeSRV, dns.RcodeSuccess, "0 100 42 "+hello)
	s.expect(t, "_udp._udp."+hello, dns.TypeSRV, dns.RcodeSuccess, "0 100 42 "+hello)
	// An import without a cluster-set IP yet: the name exists, without addresses.
	create(t, serviceImport(ns, "pending", withPorts(servicePort("http", 80))))
	s.expect(t, "pending."+ns+".svc.clusterset.local.", dns.TypeA, dns.RcodeSuccess)
}

// TestHeadless checks the records of KEP-1645's DNS specification 2.4 for
// a headless import with endpoints in two clusters.
func TestHeadless(t *testing.T) {
	s := startServer(t, "fed")
	ns := clusters.Namespace(t, member)
	c1 := endpointSlice(ns, "db", "c1", slicePort("sql", 5432),
		endpoint("db-0", "192.0.2.11"), notReady("db-1", "192.0.2.12"), endpoint("", "192.0.2.13"))
	c2 := endpointSlice(ns, "db", "c2", slicePort("sql", 15432), endpoint("db-0", "198.51.100.5"))
	c2v6 := endpointSlice(ns, "db", "c2", ipv6, slicePort("sql", 15432), endpoint("db-0", "2001:db8::5"))
	create(t, serviceImport(ns, "db", headless, withPorts(servicePort("sql", 5432))), c1, c2, c2v6)
	zone := ns + ".svc.clusterset.local."
	name := "db." + zone

	s.expect(t, name, dns.TypeA, dns.RcodeSuccess, "192.0.2.11", "192.0.2.13", "198.51.100.5")
	s.expect(t, name, dns.TypeAAAA, dns.RcodeSuccess, "2001:db8::5")
	s.expect(t, "db-0.c1."+name, dns.TypeA, dns.RcodeSuccess, "192.0.2.11")
	s.expect(t, "db-0.c2."+name, dns.TypeA, dns.RcodeSuccess, "198.51.100.5")
	s.expect(t, "db-0.c2."+name, dns.TypeAAAA, dns.RcodeSuccess, "2001:db8::5")
	s.expect(t, "192-0-2-13.c1."+name, dns.TypeA, dns.RcodeSuccess, "192.0.2.13")
	s.expect(t, "db-1.c1."+name, dns.TypeA, dns.RcodeNameError) // not ready
	s.expect(t, "c1."+name, dns.TypeA, dns.RcodeNameError)      // 2.4.4
	// One record per endpoint name and port, whatever its families.
	s.expect(t, "_sql._tcp."+name, dns.TypeSRV, dns.RcodeSuccess,
		"0 33 5432 db-0.c1."+name, "0 33 5432 192-0-2-13.c1."+name, "0 33 15432 db-0.c2."+name)
	s.expect(t, name, dns.TypeSRV, dns.RcodeSuccess,
		"0 33 5432 db-0.c1."+name, "0 33 5432 192-0-2-13.c1."+name, "0 33 15432 db-0.c2."+name)
	s.expect(t, "_sql._udp."+name, dns.TypeSRV, dns.RcodeNameError)
	s.expect(t, "_sql._tcp."+name, dns.TypeA, dns.RcodeSuccess)  // NODATA
	s.expect(t, "db-0.c1."+name, dns.TypeAAAA, dns.RcodeSuccess) // NODATA: IPv4 only
	s.expect(t, "5.100.51.198.in-addr.arpa.", dns.TypePTR, dns.RcodeSuccess, "db-0.c2."+name)
	s.expect(t, reverse("2001:db8::5"), dns.TypePTR, dns.RcodeSuccess, "db-0.c2."+name)

	// No ready endpoint left: NXDOMAIN (2.4.1).
	for _, sl := range []*discoveryv1.EndpointSlice{c1, c2, c2v6} {
		for i := range sl.Endpoints {
			sl.Endpoints[i].Conditions.Ready = new(bool)
		}
		update(t, sl)
	}
	s.expect(t, name, dns.TypeA, dns.RcodeNameError)
	s.expect(t, name, dns.TypeAAAA, dns.RcodeNameError)
	s.expect(t, "_sql._tcp."+name, dns.TypeSRV, dns.RcodeNameError)
	s.expect(t, "db-0.c1."+name, dns.TypeA, dns.RcodeNameError)
}

// TestUpdatesAndDeletions checks that changes of imports and slices reach
// the answers, for clusterset.local and federation names alike.
func TestUpdatesAndDeletions(t *testing.T) {
	s := startServer(t, "fed")
	ns := clusters.Namespace(t, member)
	name := "web." + ns + ".svc.clusterset.local."
	fedName := "web." + ns + ".fed.svc.cluster.local."
	s.expect(t, name, dns.TypeA, dns.RcodeNameError)

	si := serviceImport(ns, "web", withIPs("10.96.201.1"), withPorts(servicePort("http", 80)))
	create(t, si)
	s.expect(t, name, dns.TypeA, dns.RcodeSuccess, "10.96.201.1")
	s.expect(t, fedName, dns.TypeA, dns.RcodeSuccess, "10.96.201.1")

	si.Spec.IPs = []string{"10.96.201.2"}
	update(t, si)
	s.expect(t, name, dns.TypeA, dns.RcodeSuccess, "10.96.201.2")
	s.expect(t, fedName, dns.TypeA, dns.RcodeSuccess, "10.96.201.2")

	sl := endpointSlice(ns, "web", "c1", slicePort("http", 80), endpoint("", "192.0.2.31"))
	create(t, sl)
	s.expect(t, "web."+ns+".c1.fed.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "192.0.2.31")
	sl.Endpoints = append(sl.Endpoints, sl.Endpoints[0])
	sl.Endpoints[1].Addresses = []string{"192.0.2.32"}
	update(t, sl)
	s.expect(t, "web."+ns+".c1.fed.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "192.0.2.31", "192.0.2.32")
	remove(t, sl)
	s.expect(t, "web."+ns+".c1.fed.svc.cluster.local.", dns.TypeA, dns.RcodeNameError)

	remove(t, si)
	s.expect(t, name, dns.TypeA, dns.RcodeNameError)
	s.expect(t, fedName, dns.TypeA, dns.RcodeNameError)
	s.expect(t, "1.201.96.10.in-addr.arpa.", dns.TypePTR, dns.RcodeNameError)
}
