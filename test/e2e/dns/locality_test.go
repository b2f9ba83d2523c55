package dns

import (
	"context"
	"fmt"
	"net/netip"
	"testing"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

// Clients of TestPreferClose: loopback addresses in the pod CIDRs of the
// Nodes it creates (Linux answers from every address of 127.0.0.0/8).
var (
	inZoneA  = netip.MustParseAddr("127.77.1.5")
	inZoneB  = netip.MustParseAddr("127.77.2.5")
	inZoneC  = netip.MustParseAddr("127.77.3.5")
	onNodeA  = netip.MustParseAddr("127.77.9.1") // node A's own address
	anywhere = netip.MustParseAddr("127.0.0.1")  // on no Node
)

// TestPreferClose checks that, for a PreferClose import, headless answers
// hold the closest tier of ready endpoints for the client asking: its own
// cluster (member-1, from the ClusterMembership) in its zone, its own
// cluster, another cluster in its zone, its region, then everywhere; zone
// and region from the member's Node whose pod CIDR or address holds the
// client's address (the member's most common region when none does). The
// farther tiers answer once the closer ones have no ready endpoint.
func TestPreferClose(t *testing.T) {
	ensureMembership(t)
	createNodes(t)
	s := startServer(t, "")
	ns := clusters.Namespace(t, member)
	own := endpointSlice(ns, "near", member, region("eu"), slicePort("sql", 5432),
		inZone("eu-1a", "near-0", "192.0.2.1"), inZone("eu-1b", "near-1", "192.0.2.2"))
	create(t,
		serviceImport(ns, "near", headless, preferClose, withPorts(servicePort("sql", 5432))), own,
		endpointSlice(ns, "near", "member-2", region("eu"), slicePort("sql", 5432), inZone("eu-1a", "", "198.51.100.1")),
		serviceImport(ns, "far", headless, preferClose, withPorts(servicePort("sql", 5432))),
		endpointSlice(ns, "far", "member-2", region("eu"), slicePort("sql", 5432),
			inZone("eu-1a", "", "198.51.100.11"), inZone("eu-1c", "", "198.51.100.13")),
		endpointSlice(ns, "far", "member-2", ipv6, region("eu"), slicePort("sql", 5432), inZone("eu-1a", "", "2001:db8::11")),
		endpointSlice(ns, "far", "member-3", region("us"), slicePort("sql", 5432), inZone("us-1a", "", "203.0.113.11")))
	near, far := "near."+ns+".svc.clusterset.local.", "far."+ns+".svc.clusterset.local."
	fedNear := "near." + ns + "." + federationID + ".svc.cluster.local."

	// Own cluster: in the client's zone first, else all of it.
	s.expectFrom(t, inZoneA, near, dns.TypeA, dns.RcodeSuccess, "192.0.2.1")
	s.expectFrom(t, onNodeA, near, dns.TypeA, dns.RcodeSuccess, "192.0.2.1")
	s.expectFrom(t, inZoneB, near, dns.TypeA, dns.RcodeSuccess, "192.0.2.2")
	s.expectFrom(t, inZoneC, near, dns.TypeA, dns.RcodeSuccess, "192.0.2.1", "192.0.2.2")
	s.expectFrom(t, inZoneA, "_sql._tcp."+near, dns.TypeSRV, dns.RcodeSuccess, "0 100 5432 near-0."+member+"."+near)
	s.expectFrom(t, inZoneA, fedNear, dns.TypeA, dns.RcodeSuccess, "192.0.2.1")
	// Names of one cluster or one endpoint hold what they name.
	s.expectFrom(t, inZoneA, "near-1."+member+"."+near, dns.TypeA, dns.RcodeSuccess, "192.0.2.2")
	s.expectFrom(t, inZoneA, "near."+ns+".member-2."+federationID+".svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "198.51.100.1")

	// No endpoint of the own cluster: another cluster in the client's zone,
	// else the client's region (eu, also for a client on no Node: most of
	// the member's Nodes are in eu), else everywhere. A and AAAA hold the
	// same endpoints (the specification's rule for headless Services).
	s.expectFrom(t, inZoneC, far, dns.TypeA, dns.RcodeSuccess, "198.51.100.13")
	s.expectFrom(t, inZoneC, far, dns.TypeAAAA, dns.RcodeSuccess) // NODATA
	s.expectFrom(t, inZoneA, far, dns.TypeA, dns.RcodeSuccess, "198.51.100.11")
	s.expectFrom(t, inZoneA, far, dns.TypeAAAA, dns.RcodeSuccess, "2001:db8::11")
	s.expectFrom(t, inZoneB, far, dns.TypeA, dns.RcodeSuccess, "198.51.100.11", "198.51.100.13")
	s.expectFrom(t, anywhere, far, dns.TypeA, dns.RcodeSuccess, "198.51.100.11", "198.51.100.13")

	// The closest tier empties: the next one answers.
	own.Endpoints[0].Conditions.Ready = ptr.To(false)
	update(t, own)
	s.expectFrom(t, inZoneA, near, dns.TypeA, dns.RcodeSuccess, "192.0.2.2")
	own.Endpoints[1].Conditions.Ready = ptr.To(false)
	update(t, own)
	s.expectFrom(t, inZoneA, near, dns.TypeA, dns.RcodeSuccess, "198.51.100.1")

	// Without the preference: every ready endpoint, for every client.
	si := &mcsv1beta1.ServiceImport{}
	c := clusters.Client(t, member)
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "far"}, si); err != nil {
		t.Fatal(err)
	}
	si.Spec.TrafficDistribution = nil
	update(t, si)
	s.expectFrom(t, inZoneC, far, dns.TypeA, dns.RcodeSuccess, "198.51.100.11", "198.51.100.13", "203.0.113.11")
}

// createNodes creates three Nodes of member-1 in region eu, zones eu-1a,
// eu-1b and eu-1c, with pod CIDRs 127.77.1.0/24 to 127.77.3.0/24; node A
// also has the address 127.77.9.1. With the sandbox's two Nodes (region
// sandbox), eu is the member's most common region.
func createNodes(t *testing.T) {
	t.Helper()
	c := clusters.Client(t, member)
	for i, zone := range []string{"eu-1a", "eu-1b", "eu-1c"} {
		n := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "dns-e2e-" + zone, Labels: map[string]string{
				corev1.LabelTopologyZone: zone, corev1.LabelTopologyRegion: "eu"}},
			Spec: corev1.NodeSpec{PodCIDR: fmt.Sprintf("127.77.%d.0/24", i+1), PodCIDRs: []string{fmt.Sprintf("127.77.%d.0/24", i+1)}},
		}
		if i == 0 {
			n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: onNodeA.String()}}
		}
		if err := c.Create(t.Context(), n); err != nil {
			t.Fatalf("creating Node %s: %v", n.Name, err)
		}
		t.Cleanup(func() { _ = c.Delete(context.WithoutCancel(t.Context()), n) })
	}
}
