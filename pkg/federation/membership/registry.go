package membership

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// identity is what a cluster is in its federation.
type identity struct {
	FederationID string
	ClusterID    string
	Supervisor   bool
}

func namespaceObject() *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: clusterScoped(federationv1alpha1.SystemNamespace)}
}

// membershipObject is the cluster's own identity (KEP-2149 names), labelled
// with its member labels as its registry entries are: the member controller
// reads them to evaluate member-label selectors against its own entities.
func membershipObject(id identity, labels map[string]string) *federationv1alpha1.ClusterMembership {
	return &federationv1alpha1.ClusterMembership{
		ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.MembershipName, Labels: managedLabels(labels)},
		Spec: federationv1alpha1.ClusterMembershipSpec{
			ClusterID:    id.ClusterID,
			FederationID: id.FederationID,
			Supervisor:   id.Supervisor,
		},
	}
}

// registration is what a supervisor's registry holds of one member.
type registration struct {
	identity
	Server string
	Labels map[string]string
	Token  []byte
	CA     []byte
}

// memberClusterObject is a supervisor's registry entry for a member.
func memberClusterObject(r registration) *federationv1alpha1.MemberCluster {
	return &federationv1alpha1.MemberCluster{
		ObjectMeta: metav1.ObjectMeta{Name: r.ClusterID, Namespace: federationv1alpha1.SystemNamespace, Labels: managedLabels(r.Labels)},
		Spec: federationv1alpha1.MemberClusterSpec{
			ClusterID:            r.ClusterID,
			Server:               r.Server,
			CredentialsSecretRef: federationv1alpha1.SecretReference{Name: federationv1alpha1.MemberSecretName(r.ClusterID)},
			Supervisor:           r.Supervisor,
		},
	}
}

// credentialSecret holds the member's federation token and the CA of its API server.
func credentialSecret(r registration) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: namespaced(federationv1alpha1.MemberSecretName(r.ClusterID)),
		Type:       corev1.SecretTypeOpaque,
		Data: map[string][]byte{
			federationv1alpha1.CredentialTokenKey: r.Token,
			federationv1alpha1.CredentialCAKey:    r.CA,
		},
	}
}
