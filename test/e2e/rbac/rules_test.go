package rbac

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/install"
)

// permission is one verb on one resource (of one name, if set), or on one
// non-resource URL.
type permission struct {
	verb, group, resource, name, url string
}

func (p permission) String() string {
	if p.url != "" {
		return p.verb + " " + p.url
	}
	s := p.verb + " " + p.resource
	if p.group != "" {
		s += "." + p.group
	}
	if p.name != "" {
		s += " named " + p.name
	}
	return s
}

// expand is every permission a rule's lists combine to; no resourceNames
// is any object.
func expand(verbs, groups, resources, resourceNames []string) []permission {
	if len(resourceNames) == 0 {
		resourceNames = []string{""}
	}
	var out []permission
	for _, v := range verbs {
		for _, g := range groups {
			for _, r := range resources {
				for _, n := range resourceNames {
					out = append(out, permission{verb: v, group: g, resource: r, name: n})
				}
			}
		}
	}
	return out
}

func (g grant) permissions() []permission {
	return expand(strings.Fields(g.verbs), []string{g.group}, strings.Fields(g.resources), strings.Fields(g.names))
}

// expected is what the table grants a in namespace ns, each with its reason.
func (a account) expected(ns string) map[permission]string {
	out := map[permission]string{}
	for _, g := range a.grants {
		if g.inRelease && ns != federationv1alpha1.SystemNamespace {
			continue
		}
		for _, p := range g.permissions() {
			out[p] = g.why
		}
	}
	return out
}

// review asks the API server what the client's user may do in namespace
// (cluster-wide grants included): a SelfSubjectRulesReview.
func review(ctx context.Context, cs kubernetes.Interface, namespace string) (map[permission]bool, error) {
	r, err := cs.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx,
		&authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: namespace}}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("reviewing the rules in %s: %w", namespace, err)
	}
	if r.Status.Incomplete {
		return nil, fmt.Errorf("the API server's rules in %s are incomplete: %s", namespace, r.Status.EvaluationError)
	}
	out := map[permission]bool{}
	for _, rule := range r.Status.ResourceRules {
		for _, p := range expand(rule.Verbs, rule.APIGroups, rule.Resources, rule.ResourceNames) {
			out[p] = true
		}
	}
	for _, rule := range r.Status.NonResourceRules {
		for _, v := range rule.Verbs {
			for _, u := range rule.NonResourceURLs {
				out[permission{verb: v, url: u}] = true
			}
		}
	}
	return out, nil
}

// unbound is a ServiceAccount of the release's namespace that no binding
// names: what it may do, every account may (Kubernetes's defaults for
// authenticated users).
const unbound = "antreaplus-rbac-test-unbound"

// selfReviews are the only resources Kubernetes lets every authenticated
// user touch (system:basic-user): asking what it may do.
var selfReviews = map[permission]bool{
	{verb: "create", group: "authorization.k8s.io", resource: "selfsubjectaccessreviews"}: true,
	{verb: "create", group: "authorization.k8s.io", resource: "selfsubjectrulesreviews"}:  true,
	{verb: "create", group: "authentication.k8s.io", resource: "selfsubjectreviews"}:      true,
}

// baseline is what an account bound to nothing may do in ns; the test
// fails when the cluster grants it more than Kubernetes's defaults, which
// would hide the chart's grants.
func baseline(t *testing.T, ns string) map[permission]bool {
	t.Helper()
	got, err := review(t.Context(), clientFor(clusters.Config(t, cluster), unbound), ns)
	if err != nil {
		t.Fatal(err)
	}
	for p := range got {
		if p.url == "" && !selfReviews[p] {
			t.Fatalf("in %s, an account bound to nothing may %s: the cluster grants every account more than Kubernetes's defaults, so the chart's grants cannot be told apart", ns, p)
		}
	}
	return got
}

// TestRulesAreTheTable: what the API server says each account of the chart
// may do, in antreaplus-system and in a user's namespace, is exactly its
// rows of the table (rights_test.go) besides what every account may do.
// A grant beyond the table fails, naming it: each must be justified there.
func TestRulesAreTheTable(t *testing.T) {
	installChart(t)
	cfg := clusters.Config(t, cluster)
	namespaces := []string{federationv1alpha1.SystemNamespace, userNamespace}
	base := map[string]map[permission]bool{}
	for _, ns := range namespaces {
		base[ns] = baseline(t, ns)
	}
	for _, a := range accounts {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			cs := clientFor(cfg, a.name)
			for _, ns := range namespaces {
				got, err := review(t.Context(), cs, ns)
				if err != nil {
					t.Fatal(err)
				}
				want := a.expected(ns)
				for _, p := range sortedPermissions(got) {
					if _, ok := want[p]; !ok && !base[ns][p] {
						t.Errorf("in %s it may %s, which the table does not list: a grant needs a row in rights_test.go saying what the program does with it", ns, p)
					}
				}
				for _, p := range sortedPermissions(want) {
					if !got[p] {
						t.Errorf("in %s it may not %s, which the table lists (%s): drop the row or restore the grant", ns, p, want[p])
					}
				}
			}
		})
	}
}

func sortedPermissions[V any](m map[permission]V) []permission {
	return slices.SortedFunc(maps.Keys(m), func(a, b permission) int { return strings.Compare(a.String(), b.String()) })
}

// TestEveryAccountHasARow: the ServiceAccounts the chart renders are the
// table's, each with calls to make (calls_test.go), and the chart binds
// its roles to them alone (no group, user or other account), so that the
// table covers every right the chart gives.
func TestEveryAccountHasARow(t *testing.T) {
	values, err := chartValues()
	if err != nil {
		t.Fatal(err)
	}
	r, err := install.Render(install.RenderOptions{Values: values})
	if err != nil {
		t.Fatal(err)
	}
	var rendered, bound []string
	for _, o := range r.Objects {
		switch o.GetKind() {
		case "ServiceAccount":
			rendered = append(rendered, o.GetName())
		case "RoleBinding", "ClusterRoleBinding":
			var b rbacv1.ClusterRoleBinding
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &b); err != nil {
				t.Fatal(err)
			}
			for _, s := range b.Subjects {
				if s.Kind != rbacv1.ServiceAccountKind || s.Namespace != federationv1alpha1.SystemNamespace {
					t.Errorf("%s %s binds %s %s/%s, not a ServiceAccount of the release", o.GetKind(), o.GetName(), s.Kind, s.Namespace, s.Name)
				}
				bound = append(bound, s.Name)
			}
		}
	}
	var table []string
	for _, a := range accounts {
		table = append(table, a.name)
		if c := callsOf[a.name]; len(c.refused) == 0 || len(c.allowed) == 0 {
			t.Errorf("%s has no calls to refuse or allow in calls_test.go", a.name)
		}
	}
	slices.Sort(rendered)
	slices.Sort(table)
	if !slices.Equal(rendered, table) {
		t.Errorf("the chart renders the ServiceAccounts %v, the table has %v", rendered, table)
	}
	for _, b := range bound {
		if !slices.Contains(rendered, b) {
			t.Errorf("a binding names %s, which the chart does not render", b)
		}
	}
}
