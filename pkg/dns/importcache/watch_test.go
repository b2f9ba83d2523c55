package importcache

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// TestFederationIDAcrossRenewal: informers replaced after an outage answer
// the federation ID of the ones they replace until they have listed; then
// they keep it only if the ClusterMembership is still there.
func TestFederationIDAcrossRenewal(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:1"} // never contacted
	cases := []struct {
		name string
		// listed is the ClusterMembership's federation ID the new informer
		// listed ("" when it listed none); changed is one it saw since.
		listed, changed string
		want            string
	}{
		{"still a member", "fed", "", "fed"},
		{"left during the outage", "", "", ""},
		{"joined another federation since", "", "other", "other"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prev, err := newMembership(cfg, "")
			if err != nil {
				t.Fatal(err)
			}
			id := "fed"
			prev.id.Store(&id)
			next, err := newMembership(cfg, "")
			if err != nil {
				t.Fatal(err)
			}
			next.carryOver(prev)
			carried := next.id.Load()
			if got := next.federationID(); got != "fed" {
				t.Fatalf("while listing: %q, want the previous %q", got, "fed")
			}
			if tc.listed != "" {
				add(t, next, tc.listed)
			}
			if tc.changed != "" {
				next.set(membershipObject(tc.changed))
			}
			next.forgetUnlisted(carried)
			if got := next.federationID(); got != tc.want {
				t.Fatalf("after listing: %q, want %q", got, tc.want)
			}
		})
	}
}

// add files a ClusterMembership in m's informer store, as its list does.
func add(t *testing.T, m *membership, fed string) {
	t.Helper()
	o := membershipObject(fed)
	if err := m.store.Add(o); err != nil {
		t.Fatal(err)
	}
	m.set(o)
}

func membershipObject(fed string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"federationID": fed}}}
	u.SetAPIVersion(federationv1alpha1.GroupVersion.String())
	u.SetKind("ClusterMembership")
	u.SetName(federationv1alpha1.MembershipName)
	return u
}
