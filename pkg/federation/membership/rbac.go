package membership

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
)

const mcsGroup = "multicluster.x-k8s.io"

var (
	readVerbs = []string{"get", "list", "watch"}
	// No patch: the leader writes with update (optimistic concurrency on
	// resourceVersion), never with patch or apply.
	writeVerbs = []string{"get", "list", "watch", "create", "update", "delete"}
)

// leaseRules let the federation account hold the member's leader Lease,
// in federationv1alpha1.SystemNamespace only: it updates that Lease alone, by name (the
// member's own controllers' Leases are not the federation's to write), and
// reads the Leases there: the leader Lease, a supervisor's manager Lease
// (its heartbeat) and the tenants' claims, which the leader of every
// member reads through a cache (package tenantoverlaps). Create cannot be
// limited by name (the authorizer is not told the name of an object to be
// created). No delete: a Lease outlives its holders.
func leaseRules() []rbacv1.PolicyRule {
	leases := func(verbs []string, names ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: names, Verbs: verbs}
	}
	return []rbacv1.PolicyRule{
		leases([]string{"create"}),
		leases([]string{"update"}, federationv1alpha1.LeaderLease),
		leases(readVerbs),
	}
}

// overlapsRules let the leader keep, in federationv1alpha1.SystemNamespace, the ConfigMap of
// the tenants claimed in other members too (tenancyv1alpha1.OverlapsConfigMap,
// package tenantoverlaps): by name, but for create, which cannot be; and
// record Events on the tenants' claim Leases there (create only: each
// Event is new).
func overlapsRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{tenancyv1alpha1.OverlapsConfigMap}, Verbs: []string{"get", "update", "delete"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create"}},
	}
}

// dnsEndpointRules let the leader keep, in federationv1alpha1.SystemNamespace, the
// DNSEndpoints ExternalDNS publishes (package dnsendpoints): it lists and
// reads them from the API server (no watch: it lists every resync), creates,
// updates and deletes its own (the names follow the Services: not by name).
func dnsEndpointRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{{APIGroups: []string{"externaldns.k8s.io"}, Resources: []string{"dnsendpoints"},
		Verbs: []string{"get", "list", "create", "update", "delete"}}}
}

// namespaceRules are the federation account's rights in federationv1alpha1.SystemNamespace.
func namespaceRules() []rbacv1.PolicyRule {
	return slices.Concat(leaseRules(), overlapsRules(), dnsEndpointRules())
}

// antreaGroup is the API group of Antrea's ExternalEntities.
const antreaGroup = "crd.antrea.io"

// clusterRules let the federation account read exports (ServiceExports,
// EntityExports and the ExternalEntities they select), write imports
// (ServiceImports, their EndpointSlices and Services, RemoteEntities) and
// the membership status.
func clusterRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{mcsGroup}, Resources: []string{"serviceexports"}, Verbs: readVerbs},
		// The leader writes the Conflict condition of the member's exports.
		{APIGroups: []string{mcsGroup}, Resources: []string{"serviceexports/status"}, Verbs: []string{"update"}},
		{APIGroups: []string{mcsGroup}, Resources: []string{"serviceimports/status"}, Verbs: []string{"update"}},
		{APIGroups: []string{mcsGroup}, Resources: []string{"serviceimports"}, Verbs: writeVerbs},
		{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: writeVerbs},
		{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: writeVerbs},
		{APIGroups: []string{""}, Resources: []string{"namespaces", "nodes"}, Verbs: readVerbs},
		{APIGroups: []string{federationv1alpha1.GroupVersion.Group}, Resources: []string{"clustermemberships"}, Verbs: readVerbs},
		{APIGroups: []string{federationv1alpha1.GroupVersion.Group}, Resources: []string{"clustermemberships/status"}, Verbs: []string{"update"}},
		{APIGroups: []string{federationv1alpha1.GroupVersion.Group}, Resources: []string{"entityexports"}, Verbs: readVerbs},
		// The leader writes where the member's exports went (Exported, status.clusters).
		{APIGroups: []string{federationv1alpha1.GroupVersion.Group}, Resources: []string{"entityexports/status"}, Verbs: []string{"update"}},
		{APIGroups: []string{antreaGroup}, Resources: []string{"externalentities"}, Verbs: readVerbs},
		{APIGroups: []string{federationv1alpha1.GroupVersion.Group}, Resources: []string{"remoteentities"}, Verbs: writeVerbs},
	}
}

// supervisorRules let the other supervisors read this supervisor's registry.
func supervisorRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{{
		APIGroups: []string{federationv1alpha1.GroupVersion.Group},
		Resources: []string{"memberclusters"},
		Verbs:     readVerbs,
	}}
}

func namespaced(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: federationv1alpha1.SystemNamespace, Labels: managedLabels(nil)}
}

func clusterScoped(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Labels: managedLabels(nil)}
}

func accountSubject() []rbacv1.Subject {
	return []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: federationv1alpha1.FederationServiceAccount, Namespace: federationv1alpha1.SystemNamespace}}
}

func serviceAccount() *corev1.ServiceAccount {
	return &corev1.ServiceAccount{ObjectMeta: namespaced(federationv1alpha1.FederationServiceAccount)}
}

// tokenSecret asks the token controller for a long-lived token of the account.
func tokenSecret() *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: namespaced(federationv1alpha1.FederationTokenSecret), Type: corev1.SecretTypeServiceAccountToken}
	s.Annotations = map[string]string{corev1.ServiceAccountNameKey: federationv1alpha1.FederationServiceAccount}
	return s
}

func role(name string, rules []rbacv1.PolicyRule) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: namespaced(name), Rules: rules}
}

func roleBinding(name string) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: namespaced(name),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   accountSubject(),
	}
}

func clusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: clusterScoped(federationv1alpha1.FederationClusterRole), Rules: clusterRules()}
}

func clusterRoleBinding() *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: clusterScoped(federationv1alpha1.FederationClusterRole),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: federationv1alpha1.FederationClusterRole},
		Subjects:   accountSubject(),
	}
}

// accessObjects are the RBAC objects of the federation account in a member;
// a supervisor also gets read access to its registry.
func accessObjects(supervisor bool) (roles []*rbacv1.Role, bindings []*rbacv1.RoleBinding) {
	roles = []*rbacv1.Role{role(federationv1alpha1.FederationRole, namespaceRules())}
	bindings = []*rbacv1.RoleBinding{roleBinding(federationv1alpha1.FederationRole)}
	if supervisor {
		roles = append(roles, role(federationv1alpha1.SupervisorRole, supervisorRules()))
		bindings = append(bindings, roleBinding(federationv1alpha1.SupervisorRole))
	}
	return roles, bindings
}
