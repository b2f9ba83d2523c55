package dns

import (
	"strings"
	"testing"

	"github.com/miekg/dns"
	discoveryv1 "k8s.io/api/discovery/v1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// zones records the zones of a slice's source cluster (what an endpoint
// without a zone, a load balancer address, serves).
func zones(z ...string) sliceMod {
	return func(s *discoveryv1.EndpointSlice) {
		if s.Annotations == nil {
			s.Annotations = map[string]string{}
		}
		s.Annotations[federationv1alpha1.AnnotationSourceZones] = strings.Join(z, ",")
	}
}

// TestPlaceNames checks, through the built server and a real API server,
// the region and zone names of a federated Service exported in two
// regions: each answers the ready endpoints of the exporters in that
// place (a load balancer address in every zone of its cluster), never the
// cluster-set IP, and NXDOMAIN for a place without any.
func TestPlaceNames(t *testing.T) {
	ensureMembership(t)
	s := startServer(t, "")
	ns := clusters.Namespace(t, member)
	create(t,
		serviceImport(ns, "web", withIPs("10.96.204.10"), withPorts(servicePort("http", 80))),
		endpointSlice(ns, "web", "c1", region("eu"), slicePort("http", 31080),
			inZone("eu-1a", "", "192.0.2.31"), inZone("eu-1b", "", "192.0.2.32")),
		endpointSlice(ns, "web", "c2", region("eu"), zones("eu-1b", "eu-1c"), slicePort("http", 80), endpoint("", "198.51.100.31")),
		endpointSlice(ns, "web", "c3", region("us"), slicePort("http", 80), inZone("us-1a", "", "203.0.113.31")))
	name := func(place string) string {
		return "web." + ns + "." + federationID + ".svc." + place + "cluster.local."
	}

	s.expect(t, name(""), dns.TypeA, dns.RcodeSuccess, "10.96.204.10")
	s.expect(t, name("eu."), dns.TypeA, dns.RcodeSuccess, "192.0.2.31", "192.0.2.32", "198.51.100.31")
	s.expect(t, name("us."), dns.TypeA, dns.RcodeSuccess, "203.0.113.31")
	s.expect(t, name("eu-1a.eu."), dns.TypeA, dns.RcodeSuccess, "192.0.2.31")
	s.expect(t, name("eu-1b.eu."), dns.TypeA, dns.RcodeSuccess, "192.0.2.32", "198.51.100.31")
	s.expect(t, name("eu-1c.eu."), dns.TypeA, dns.RcodeSuccess, "198.51.100.31")
	s.expect(t, name("ap."), dns.TypeA, dns.RcodeNameError)
	s.expect(t, name("us-1a.eu."), dns.TypeA, dns.RcodeNameError)
	s.expect(t, "web."+ns+".c1."+federationID+".svc.eu-1b.eu.cluster.local.", dns.TypeA, dns.RcodeSuccess, "192.0.2.32")
	s.expect(t, "_http._tcp."+name("eu-1a.eu."), dns.TypeSRV, dns.RcodeSuccess,
		"0 100 31080 web."+ns+".c1."+federationID+".svc.eu-1a.eu.cluster.local.")
}
