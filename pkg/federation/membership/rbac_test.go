package membership

import (
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
)

// grants flattens rules to sorted "group/resource[names]:verb" strings.
func grants(rules []rbacv1.PolicyRule) []string {
	var out []string
	for _, r := range rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					name := ""
					if len(r.ResourceNames) > 0 {
						name = "[" + strings.Join(r.ResourceNames, ",") + "]"
					}
					out = append(out, g+"/"+res+name+":"+v)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func expand(groupResource string, verbs ...string) []string {
	var out []string
	for _, v := range verbs {
		out = append(out, groupResource+":"+v)
	}
	return out
}

func TestRulesAreExactlyTheLeastPrivilege(t *testing.T) {
	all := []string{"get", "list", "watch", "create", "update", "delete"}
	read := []string{"get", "list", "watch"}
	tests := []struct {
		name  string
		rules []rbacv1.PolicyRule
		want  [][]string
	}{
		{name: "namespace role: the leader Lease, the claims, the overlaps ConfigMap and its Events, the DNSEndpoints", rules: namespaceRules(), want: [][]string{
			expand("coordination.k8s.io/leases", "create"),
			expand("coordination.k8s.io/leases["+federationv1alpha1.LeaderLease+"]", "update"),
			expand("coordination.k8s.io/leases", read...),
			expand("/configmaps", "create"),
			expand("/configmaps["+tenancyv1alpha1.OverlapsConfigMap+"]", "get", "update", "delete"),
			expand("/events", "create"),
			expand("externaldns.k8s.io/dnsendpoints", "get", "list", "create", "update", "delete"),
		}},
		{name: "cluster role: exports, imports, entities, membership status", rules: clusterRules(), want: [][]string{
			expand("multicluster.x-k8s.io/serviceexports", read...),
			expand("multicluster.x-k8s.io/serviceexports/status", "update"),
			expand("multicluster.x-k8s.io/serviceimports", all...),
			expand("multicluster.x-k8s.io/serviceimports/status", "update"),
			expand("discovery.k8s.io/endpointslices", all...),
			expand("/services", all...),
			expand("/namespaces", read...),
			expand("/nodes", read...),
			expand("federation.antreaplus.io/clustermemberships", read...),
			expand("federation.antreaplus.io/clustermemberships/status", "update"),
			expand("federation.antreaplus.io/entityexports", read...),
			expand("federation.antreaplus.io/entityexports/status", "update"),
			expand("crd.antrea.io/externalentities", read...),
			expand("federation.antreaplus.io/remoteentities", all...),
		}},
		{name: "supervisor role: read the registry", rules: supervisorRules(), want: [][]string{
			expand("federation.antreaplus.io/memberclusters", read...),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := slices.Concat(tt.want...)
			slices.Sort(want)
			if got := grants(tt.rules); !slices.Equal(got, want) {
				t.Fatalf("grants:\n got  %v\n want %v", got, want)
			}
			for _, g := range grants(tt.rules) {
				if strings.Contains(g, "*") || strings.Contains(g, "/secrets:") || strings.HasSuffix(g, ":escalate") || strings.HasSuffix(g, ":bind") || strings.HasSuffix(g, ":impersonate") {
					t.Errorf("grant %s is not least privilege", g)
				}
			}
		})
	}
}

func TestAccessObjects(t *testing.T) {
	for _, supervisor := range []bool{false, true} {
		roles, bindings := accessObjects(supervisor)
		wantRoles := []string{federationv1alpha1.FederationRole}
		if supervisor {
			wantRoles = append(wantRoles, federationv1alpha1.SupervisorRole)
		}
		var got []string
		for i, r := range roles {
			got = append(got, r.Name)
			b := bindings[i]
			if r.Namespace != federationv1alpha1.SystemNamespace || b.Namespace != federationv1alpha1.SystemNamespace {
				t.Errorf("role %s / binding %s not in %s", r.Name, b.Name, federationv1alpha1.SystemNamespace)
			}
			if b.RoleRef.Kind != "Role" || b.RoleRef.Name != r.Name {
				t.Errorf("binding %s refers to %+v, want Role %s", b.Name, b.RoleRef, r.Name)
			}
			checkSubject(t, b.Subjects)
			checkManaged(t, r.Labels, b.Labels)
		}
		if !slices.Equal(got, wantRoles) || len(bindings) != len(roles) {
			t.Errorf("supervisor=%t: roles %v with %d bindings, want %v with one binding each", supervisor, got, len(bindings), wantRoles)
		}
	}
	crb := clusterRoleBinding()
	if crb.RoleRef.Kind != "ClusterRole" || crb.RoleRef.Name != clusterRole().Name || crb.RoleRef.Name == "cluster-admin" {
		t.Errorf("cluster role binding refers to %+v", crb.RoleRef)
	}
	checkSubject(t, crb.Subjects)
	checkManaged(t, crb.Labels, clusterRole().Labels, serviceAccount().Labels, tokenSecret().Labels)
	if tokenSecret().Annotations["kubernetes.io/service-account.name"] != federationv1alpha1.FederationServiceAccount {
		t.Errorf("token Secret does not name the account: %v", tokenSecret().Annotations)
	}
}

func checkSubject(t *testing.T, subjects []rbacv1.Subject) {
	t.Helper()
	want := rbacv1.Subject{Kind: "ServiceAccount", Name: federationv1alpha1.FederationServiceAccount, Namespace: federationv1alpha1.SystemNamespace}
	if len(subjects) != 1 || subjects[0] != want {
		t.Errorf("subjects = %+v, want only %+v", subjects, want)
	}
}

func checkManaged(t *testing.T, labelSets ...map[string]string) {
	t.Helper()
	for _, l := range labelSets {
		if l[federationv1alpha1.LabelManagedBy] != federationv1alpha1.ManagedByFederation {
			t.Errorf("labels %v lack %s=%s", l, federationv1alpha1.LabelManagedBy, federationv1alpha1.ManagedByFederation)
		}
	}
}
