package translate

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

func TestTranslateShapes(t *testing.T) {
	web := []federationv1alpha1.RemoteEntity{remoteEntity("shop", "member-1", "a", "10.0.0.1", "::ffff:10.0.0.2"), remoteEntity("other", "member-1", "b", "10.0.0.9")}
	many := make([]antreav1beta1.NetworkPolicyPeer, 40)
	for i := range many {
		many[i] = clusterSetEntities("app", "web")
	}
	cases := []struct {
		name     string
		policy   policyMod
		entities []federationv1alpha1.RemoteEntity
		// rules and groups are the derived rule names and group sizes.
		rules   string
		groups  []int
		problem string
		note    string
	}{
		{name: "remote entities of the policy's Namespace only, IPv4-mapped unmapped",
			policy: ingressFrom(clusterSetEntities("app", "web")), entities: web, rules: "ingress-0", groups: []int{2}},
		{name: "1024 ipBlocks a Group at most",
			policy: ingressFrom(clusterSetEntities("app", "web")), entities: manyEntities("shop", 2500),
			rules: "ingress-0", groups: []int{1024, 1024, 452}, note: "2500 addresses split into 3 Groups"},
		{name: "50 peers a rule at most",
			policy: ingressFrom(many...), entities: web, rules: "ingress-0-1 ingress-0-2", groups: repeat(2, 40),
			note: "split into 2 consecutive rules"},
		{name: "100 rules a direction at most",
			policy: manyServiceRules(101), rules: "", problem: ReasonTooLarge},
		{name: "a selector that does not parse",
			policy: ingressFrom(antreav1beta1.NetworkPolicyPeer{Scope: antreav1beta1.ScopeClusterSet,
				ExternalEntitySelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}}),
			problem: ReasonInvalidPolicy},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Translate(policy(tc.policy), inputs(tc.entities...))
			checkValid(t, res)
			if tc.problem != "" {
				if res.Report.Problem == nil || res.Report.Problem.Reason != tc.problem || res.Policy != nil || res.Groups != nil {
					t.Fatalf("problem = %+v, policy %v; want %s and nothing derived", res.Report.Problem, res.Policy != nil, tc.problem)
				}
				return
			}
			if res.Report.Problem != nil {
				t.Fatalf("problem: %+v", res.Report.Problem)
			}
			var names []string
			for _, r := range res.Policy.Spec.Ingress {
				names = append(names, r.Name)
			}
			if got := strings.Join(names, " "); got != tc.rules {
				t.Errorf("rules %q; want %q", got, tc.rules)
			}
			var sizes []int
			for _, g := range res.Groups {
				sizes = append(sizes, len(g.Spec.IPBlocks))
			}
			if !equality.Semantic.DeepEqual(sizes, tc.groups) {
				t.Errorf("group sizes %v; want %v", sizes, tc.groups)
			}
			if notes := strings.Join(res.Report.Notes, "\n"); !strings.Contains(notes, tc.note) || (tc.note == "" && notes != "") {
				t.Errorf("notes %q; want %q", notes, tc.note)
			}
		})
	}
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// manyServiceRules is n egress rules, each to a federated Service.
func manyServiceRules(n int) policyMod {
	return func(p *policyv1alpha1.FederatedNetworkPolicy) {
		for range n {
			egressToServices(federated("shop", "orders"))(p)
			p.Spec.Egress[len(p.Spec.Egress)-1].Name = ""
		}
	}
}

func TestDerivedMetadata(t *testing.T) {
	long := strings.Repeat("a", 250)
	res := Translate(policy(named(long), ingressFrom(clusterSetEntities("app", "web"))), inputs())
	checkValid(t, res)
	if len(res.Policy.Name) > 253 || !strings.HasPrefix(res.Policy.Name, "fnp-aaa") {
		t.Errorf("derived name %q", res.Policy.Name)
	}
	for _, obj := range []metav1.Object{res.Policy, res.Groups[0]} {
		l := obj.GetLabels()
		if l[federationv1alpha1.LabelManagedBy] != policyv1alpha1.ManagedByMemberController || l[policyv1alpha1.LabelFederatedPolicy] != PolicyLabelValue(long) || len(l[policyv1alpha1.LabelFederatedPolicy]) > 63 {
			t.Errorf("%s: labels %v", obj.GetName(), l)
		}
		refs := obj.GetOwnerReferences()
		if len(refs) != 1 || refs[0].Kind != "FederatedNetworkPolicy" || refs[0].Name != long || refs[0].UID != "uid-web" || !*refs[0].Controller {
			t.Errorf("%s: owner references %+v", obj.GetName(), refs)
		}
		if obj.GetNamespace() != "shop" {
			t.Errorf("%s: namespace %q", obj.GetName(), obj.GetNamespace())
		}
	}
	if PolicyName("web") != "fnp-web" || PolicyLabelValue("web") != "web" {
		t.Errorf("short names changed: %s %s", PolicyName("web"), PolicyLabelValue("web"))
	}
}

func TestDeterministic(t *testing.T) {
	entities := append(manyEntities("shop", 50), remoteEntity("shop", "member-3", "v6", "fd00::2", "fd00::1"))
	p := policy(ingressFrom(clusterSetEntities("app", "web"), clusterSetEntities("app", "web")))
	first := Translate(p, inputs(entities...))
	for i := range 20 {
		// Reversed input order gives the same objects.
		rev := make([]federationv1alpha1.RemoteEntity, len(entities))
		for j := range entities {
			rev[len(entities)-1-j] = entities[(j+i)%len(entities)]
		}
		again := Translate(p, inputs(rev...))
		if !equality.Semantic.DeepEqual(first, again) {
			t.Fatalf("translation %d differs", i)
		}
	}
}

func TestMember(t *testing.T) {
	m := Member{ClusterID: "member-2", Labels: map[string]string{"region": "eu", "topology.kubernetes.io/zone": "eu-1a", "app.kubernetes.io/managed-by": "antreaplus-federation"}}
	got := m.FederationLabels()
	want := map[string]string{
		federationv1alpha1.LabelSourceCluster:    "member-2",
		"member.federation.antreaplus.io/region": "eu",
		"member.federation.antreaplus.io/zone":   "eu-1a",
	}
	if !equality.Semantic.DeepEqual(map[string]string(got), want) {
		t.Errorf("FederationLabels = %v; want %v", got, want)
	}
	if len((Member{}).FederationLabels()) != 0 {
		t.Error("a cluster outside any federation has federation labels")
	}
}

func TestDependencies(t *testing.T) {
	p := policy(
		ingressFrom(clusterSetEntities("app", "web"), antreav1beta1.NetworkPolicyPeer{PodSelector: selector(), Scope: antreav1beta1.ScopeClusterSet}),
		egressToServices(federated("", "orders"), federated("pay", "cards"), federated("", "orders"), antreav1beta1.PeerService{Name: "local"}),
	)
	d := DependenciesOf(p)
	want := Dependencies{OwnNamespaceEntities: true, Services: []types.NamespacedName{{Namespace: "shop", Name: "orders"}, {Namespace: "pay", Name: "cards"}}}
	if !equality.Semantic.DeepEqual(d, want) {
		t.Errorf("DependenciesOf = %+v; want %+v", d, want)
	}
	withNS := clusterSetEntities("app", "web")
	withNS.NamespaceSelector = selector()
	if d := DependenciesOf(policy(ingressFrom(withNS))); !d.SelectedNamespaces || d.OwnNamespaceEntities {
		t.Errorf("namespaceSelector peer: %+v", d)
	}
	if d := DependenciesOf(policy(ingressFrom(antreav1beta1.NetworkPolicyPeer{ExternalEntitySelector: selector()}))); d.OwnNamespaceEntities {
		t.Errorf("a peer without scope ClusterSet reads remote entities: %+v", d)
	}
}
