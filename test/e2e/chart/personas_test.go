package chart

import (
	"maps"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// personaComponent is the app.kubernetes.io/component of the personas'
// roles (templates/personas.yaml).
const personaComponent = "personas"

// isPersona: o is a role for people, which the chart renders and binds to
// nobody.
func isPersona(o *unstructured.Unstructured) bool {
	return o.GetLabels()["app.kubernetes.io/component"] == personaComponent
}

// personaRoles are the roles the chart renders for people ("Kind/name"),
// with the aggregation labels each carries.
var personaRoles = map[string][]string{
	"ClusterRole/antreaplus-tenant-admin":      nil,
	"ClusterRole/antreaplus-cloud-admin":       nil,
	"ClusterRole/antreaplus-cluster-admin":     nil,
	"Role/antreaplus-cluster-admin":            nil,
	"ClusterRole/antreaplus-aggregate-to-edit": {"rbac.authorization.k8s.io/aggregate-to-edit", "rbac.authorization.k8s.io/aggregate-to-admin"},
	"ClusterRole/antreaplus-aggregate-to-view": {"rbac.authorization.k8s.io/aggregate-to-view"},
}

// mayReadSecrets are the personas that hold the cloud accounts' credentials.
var mayReadSecrets = []string{"ClusterRole/antreaplus-tenant-admin", "ClusterRole/antreaplus-cloud-admin"}

// TestPersonas: every case renders the same persona roles, whatever the
// roles of the cluster; the chart binds none of them; their rules name
// resources the chart's CRDs serve (a status only where the CRD has one),
// never "*"; only the tenant and cloud admins touch Secrets; the aggregated
// roles carry the labels that put them into Kubernetes's admin, edit and
// view, and the view one only reads; bind is limited to the personas.
func TestPersonas(t *testing.T) {
	var first map[string][]rbacv1.PolicyRule
	for _, c := range cases {
		r := render(t, c)
		served := servedResources(t, r.crds)
		got := map[string][]rbacv1.PolicyRule{}
		for _, kind := range []string{"ClusterRole", "Role"} {
			for _, o := range r.byKind(kind) {
				if !isPersona(o) {
					continue
				}
				key := kind + "/" + o.GetName()
				want, ok := personaRoles[key]
				if !ok {
					t.Errorf("%s: %s is not a persona of the table", c.name, key)
					continue
				}
				if kind == "Role" && o.GetNamespace() != releaseNamespace {
					t.Errorf("%s: %s in %q, want %s", c.name, key, o.GetNamespace(), releaseNamespace)
				}
				for _, l := range want {
					if o.GetLabels()[l] != "true" {
						t.Errorf("%s: %s lacks the label %s=true", c.name, key, l)
					}
				}
				var role rbacv1.ClusterRole
				into(t, o, &role)
				got[key] = role.Rules
				checkPersonaRules(t, c.name, key, role.Rules, served)
			}
		}
		if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, slices.Sorted(maps.Keys(personaRoles))) {
			t.Errorf("%s: personas %v, want %v", c.name, keys, slices.Sorted(maps.Keys(personaRoles)))
		}
		if first == nil {
			first = got
		} else if !equality.Semantic.DeepEqual(got, first) {
			t.Errorf("%s: the personas' rules depend on the values", c.name)
		}
		for _, kind := range []string{"ClusterRoleBinding", "RoleBinding"} {
			for _, o := range r.byKind(kind) {
				var b rbacv1.RoleBinding
				into(t, o, &b)
				if _, persona := personaRoles[b.RoleRef.Kind+"/"+b.RoleRef.Name]; persona || isPersona(o) {
					t.Errorf("%s: %s %s binds the persona %s: the chart binds personas to nobody", c.name, kind, o.GetName(), b.RoleRef.Name)
				}
			}
		}
	}
}

// checkPersonaRules holds one persona's rules to the rules of the test's doc.
func checkPersonaRules(t *testing.T, caseName, key string, rules []rbacv1.PolicyRule, served map[string]bool) {
	t.Helper()
	role := caseName + ": " + key
	for _, rule := range rules {
		for _, list := range [][]string{rule.Verbs, rule.APIGroups, rule.Resources} {
			if slices.Contains(list, "*") {
				t.Errorf("%s: a rule with *: %+v", role, rule)
			}
		}
		if len(rule.NonResourceURLs) > 0 {
			t.Errorf("%s: non-resource URLs %v", role, rule.NonResourceURLs)
		}
		for _, g := range rule.APIGroups {
			for _, res := range rule.Resources {
				if strings.HasSuffix(g, ".antreaplus.io") || g == "crd.antrea.io" || g == "multicluster.x-k8s.io" {
					if !served[g+"/"+res] {
						t.Errorf("%s: %s of %s, which no CRD of the chart serves", role, res, g)
					}
				}
				if g == "" && res == "secrets" && !slices.Contains(mayReadSecrets, key) {
					t.Errorf("%s: Secrets %v", role, rule.Verbs)
				}
			}
		}
		if slices.Contains(rule.Verbs, "bind") || slices.Contains(rule.Verbs, "escalate") || slices.Contains(rule.Verbs, "impersonate") {
			names := slices.Sorted(slices.Values(rule.ResourceNames))
			want := []string{"antreaplus-cloud-admin", "antreaplus-cluster-admin", "antreaplus-tenant-admin"}
			if !slices.Contains(rule.Verbs, "bind") || len(rule.Verbs) != 1 || !slices.Equal(names, want) || !slices.Equal(rule.Resources, []string{"clusterroles"}) {
				t.Errorf("%s: %v on %v named %v: bind only, and only the personas", role, rule.Verbs, rule.Resources, rule.ResourceNames)
			}
		}
		if strings.HasSuffix(key, "aggregate-to-view") {
			for _, v := range rule.Verbs {
				if v != "get" && v != "list" && v != "watch" {
					t.Errorf("%s: %s: view only reads", role, v)
				}
			}
		}
	}
}

// servedResources are "group/plural" and "group/plural/status" (when the
// CRD has a status subresource) of the chart's CRDs.
func servedResources(t *testing.T, crds []*unstructured.Unstructured) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, crd := range crds {
		group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
		plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
		out[group+"/"+plural] = true
		versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
		for _, v := range versions {
			vm, _ := v.(map[string]any)
			if _, ok, _ := unstructured.NestedMap(vm, "subresources", "status"); ok {
				out[group+"/"+plural+"/status"] = true
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("the chart renders no CRDs")
	}
	return out
}
