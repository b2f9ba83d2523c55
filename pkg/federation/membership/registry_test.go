package membership

import (
	"strings"
	"testing"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func TestRegistryObjects(t *testing.T) {
	reg := registration{
		identity: identity{FederationID: "acme", ClusterID: "eu-1", Supervisor: true},
		Server:   "https://10.0.0.1:6443",
		Labels:   map[string]string{"env": "prod"},
		Token:    []byte("tok"),
		CA:       []byte("ca"),
	}
	mc := memberClusterObject(reg)
	if mc.Name != "eu-1" || mc.Namespace != federationv1alpha1.SystemNamespace || mc.Spec.ClusterID != "eu-1" || mc.Spec.Server != reg.Server || !mc.Spec.Supervisor {
		t.Errorf("MemberCluster = %+v", mc)
	}
	if mc.Spec.CredentialsSecretRef.Name != federationv1alpha1.MemberSecretName("eu-1") {
		t.Errorf("credentials ref = %q", mc.Spec.CredentialsSecretRef.Name)
	}
	if mc.Labels["env"] != "prod" || mc.Labels[federationv1alpha1.LabelManagedBy] != federationv1alpha1.ManagedByFederation {
		t.Errorf("labels = %v", mc.Labels)
	}
	if _, leaked := reg.Labels[federationv1alpha1.LabelManagedBy]; leaked {
		t.Error("building the entry changed the caller's labels")
	}
	s := credentialSecret(reg)
	if s.Name != federationv1alpha1.MemberSecretName("eu-1") || string(s.Data["token"]) != "tok" || string(s.Data["ca.crt"]) != "ca" {
		t.Errorf("Secret = %s %v", s.Name, s.Data)
	}
	m := membershipObject(reg.identity, reg.Labels)
	if m.Name != "cluster.clusterset.k8s.io" || m.Spec.FederationID != "acme" || m.Spec.ClusterID != "eu-1" || !m.Spec.Supervisor {
		t.Errorf("ClusterMembership = %+v", m)
	}
	if m.Labels["env"] != "prod" || m.Labels[federationv1alpha1.LabelManagedBy] != federationv1alpha1.ManagedByFederation || len(m.Labels) != 2 {
		t.Errorf("ClusterMembership labels = %v, want the member's labels and the managed-by label", m.Labels)
	}
}

func TestValidateMemberLabels(t *testing.T) {
	tests := []struct {
		labels  map[string]string
		wantErr string
	}{
		{labels: nil},
		{labels: map[string]string{"env": "prod", "topology.kubernetes.io/region": "eu-west-1"}},
		{labels: map[string]string{federationv1alpha1.LabelManagedBy: "me"}, wantErr: "reserved"},
		{labels: map[string]string{"bad key!": "x"}, wantErr: "invalid member labels"},
		{labels: map[string]string{"env": strings.Repeat("x", 64)}, wantErr: "invalid member labels"},
	}
	for _, tt := range tests {
		errMatches(t, validateMemberLabels(tt.labels), tt.wantErr)
	}
}
