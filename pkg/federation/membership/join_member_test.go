package membership

import (
	"reflect"
	"testing"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// TestJoinedSpec: joining again (every 'sandbox up', a repeated
// 'federation join') rewrites the identity but keeps the operator's
// spec.externalDNS, which joining never sets.
func TestJoinedSpec(t *testing.T) {
	ext := &federationv1alpha1.ExternalDNSSpec{Domain: "ext.example.org", RecordTTL: 30}
	other := &federationv1alpha1.ExternalDNSSpec{Domain: "other.example.org"}
	id := func(supervisor bool, e *federationv1alpha1.ExternalDNSSpec) federationv1alpha1.ClusterMembershipSpec {
		return federationv1alpha1.ClusterMembershipSpec{ClusterID: "member-1", FederationID: "fed", Supervisor: supervisor, ExternalDNS: e}
	}
	for _, tt := range []struct {
		name       string
		have, want federationv1alpha1.ClusterMembershipSpec
		out        federationv1alpha1.ClusterMembershipSpec
	}{
		{"identity rewritten, externalDNS kept", id(true, ext), id(false, nil), id(false, ext)},
		{"nothing to keep", id(true, nil), id(false, nil), id(false, nil)},
		{"joining with one sets it", id(false, ext), id(false, other), id(false, other)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := joinedSpec(tt.have, tt.want); !reflect.DeepEqual(got, tt.out) {
				t.Errorf("joinedSpec = %+v, want %+v", got, tt.out)
			}
		})
	}
}
