package externaldns

import (
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/test/framework"
)

// TestSetExternalDNS is what 'antreaplus federation external-dns' does,
// against member-2, which has no DNSEndpoint API: a bad domain refused
// with the CRD's message and nothing changed, a good one stored with a
// warning that nothing is published yet, --off removing it.
func TestSetExternalDNS(t *testing.T) {
	c := membership.Cluster{Name: member2, Config: clusters.Config(t, member2)}
	cl := clusters.Client(t, member2)
	framework.WriteMembership(t, cl, member2, nil)
	read := func() *federationv1alpha1.ExternalDNSSpec {
		m := &federationv1alpha1.ClusterMembership{}
		if err := cl.Get(t.Context(), client.ObjectKey{Name: federationv1alpha1.MembershipName}, m); err != nil {
			t.Fatal(err)
		}
		return m.Spec.ExternalDNS
	}
	err := membership.SetExternalDNS(t.Context(), c, &federationv1alpha1.ExternalDNSSpec{Domain: "Not_A.Domain."})
	if err == nil || !strings.Contains(err.Error(), "domain must be a DNS subdomain") {
		t.Errorf("a bad domain: %v, want the CRD's message", err)
	}
	if got := read(); got != nil {
		t.Errorf("spec.externalDNS %+v after a refused change, want none", got)
	}
	err = membership.SetExternalDNS(t.Context(), c, &federationv1alpha1.ExternalDNSSpec{Domain: "example.org", RecordTTL: 60})
	if !errors.Is(err, membership.ErrNoDNSEndpointAPI) {
		t.Errorf("member-2 without ExternalDNS's CRD: %v, want ErrNoDNSEndpointAPI", err)
	}
	if got := read(); got == nil || got.Domain != "example.org" || got.RecordTTL != 60 {
		t.Errorf("spec.externalDNS %+v, want example.org with TTL 60", got)
	}
	if err := membership.SetExternalDNS(t.Context(), c, nil); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != nil {
		t.Errorf("spec.externalDNS %+v after --off, want none", got)
	}
}
