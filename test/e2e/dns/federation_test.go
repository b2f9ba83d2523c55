package dns

import (
	"testing"

	"github.com/miekg/dns"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// federationID is the ID the member's ClusterMembership carries in these tests.
const federationID = "e2efed"

// ensureMembership makes member-1 a member of federationID, as
// 'antreaplus federation join' does.
func ensureMembership(t *testing.T) {
	t.Helper()
	cm := &federationv1alpha1.ClusterMembership{
		ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.MembershipName},
		Spec:       federationv1alpha1.ClusterMembershipSpec{ClusterID: member, FederationID: federationID},
	}
	if err := clusters.Client(t, member).Create(t.Context(), cm); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating the ClusterMembership: %v", err)
	}
}

// TestFederationNames checks <svc>.<ns>.<federationID>.svc.<domain> and the
// per-cluster names of a Service exported by a NodePort in c1 and a
// LoadBalancer in c2, and of a headless Service, with the federation ID
// read from the member's ClusterMembership.
func TestFederationNames(t *testing.T) {
	ensureMembership(t)
	s := startServer(t, "")
	ns := clusters.Namespace(t, member)
	create(t,
		serviceImport(ns, "web", withIPs("10.96.202.10"), withPorts(servicePort("http", 80))),
		endpointSlice(ns, "web", "c1", slicePort("http", 31080), endpoint("", "192.0.2.21"), endpoint("", "192.0.2.22")),
		endpointSlice(ns, "web", "c2", slicePort("http", 80), endpoint("", "198.51.100.21")),
		serviceImport(ns, "db", headless, withPorts(servicePort("sql", 5432))),
		endpointSlice(ns, "db", "c1", slicePort("sql", 5432), endpoint("db-0", "192.0.2.41")),
		endpointSlice(ns, "db", "c2", slicePort("sql", 5432), endpoint("db-0", "198.51.100.41"), notReady("db-1", "198.51.100.42")))
	suffix := "." + federationID + ".svc.cluster.local."
	web, db := "web."+ns+suffix, "db."+ns+suffix
	webC1, webC2 := "web."+ns+".c1"+suffix, "web."+ns+".c2"+suffix

	s.expect(t, web, dns.TypeA, dns.RcodeSuccess, "10.96.202.10")
	s.expect(t, webC1, dns.TypeA, dns.RcodeSuccess, "192.0.2.21", "192.0.2.22")
	s.expect(t, webC2, dns.TypeA, dns.RcodeSuccess, "198.51.100.21")
	s.expect(t, "web."+ns+".c3"+suffix, dns.TypeA, dns.RcodeNameError)
	s.expect(t, "_http._tcp."+web, dns.TypeSRV, dns.RcodeSuccess, "0 100 80 "+web)
	// Each cluster's SRV carries the port its addresses listen on.
	s.expect(t, "_http._tcp."+webC1, dns.TypeSRV, dns.RcodeSuccess, "0 100 31080 "+webC1)
	s.expect(t, "_http._tcp."+webC2, dns.TypeSRV, dns.RcodeSuccess, "0 100 80 "+webC2)

	s.expect(t, db, dns.TypeA, dns.RcodeSuccess, "192.0.2.41", "198.51.100.41")
	s.expect(t, "db."+ns+".c2"+suffix, dns.TypeA, dns.RcodeSuccess, "198.51.100.41")
	s.expect(t, "_sql._tcp."+db, dns.TypeSRV, dns.RcodeSuccess,
		"0 50 5432 db."+ns+".c1"+suffix, "0 50 5432 db."+ns+".c2"+suffix)
	s.expect(t, "nothere."+ns+suffix, dns.TypeA, dns.RcodeNameError)
	s.expect(t, ns+suffix, dns.TypeA, dns.RcodeSuccess) // the namespace node exists
}

// TestFederationIDFromCorefile checks that federation_id in the Corefile
// wins over the ClusterMembership.
func TestFederationIDFromCorefile(t *testing.T) {
	ensureMembership(t)
	s := startServer(t, "other")
	ns := clusters.Namespace(t, member)
	create(t, serviceImport(ns, "web", withIPs("10.96.203.10"), withPorts(servicePort("http", 80))))
	s.expect(t, "web."+ns+".other.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "10.96.203.10")
}

// TestFederationIDFollowsMembership checks that a member that leaves its
// federation stops answering its federation names (NXDOMAIN from the
// kubernetes plugin: in no federation, they are ordinary cluster.local
// names, and no such namespace exists), and answers them again when it
// joins.
func TestFederationIDFollowsMembership(t *testing.T) {
	ensureMembership(t)
	s := startServer(t, "")
	ns := clusters.Namespace(t, member)
	create(t, serviceImport(ns, "web", withIPs("10.96.206.10"), withPorts(servicePort("http", 80))))
	name := "web." + ns + "." + federationID + ".svc.cluster.local."
	s.expect(t, name, dns.TypeA, dns.RcodeSuccess, "10.96.206.10")

	cm := &federationv1alpha1.ClusterMembership{ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.MembershipName}}
	remove(t, cm)
	s.expect(t, name, dns.TypeA, dns.RcodeNameError)
	ensureMembership(t)
	s.expect(t, name, dns.TypeA, dns.RcodeSuccess, "10.96.206.10")
}
