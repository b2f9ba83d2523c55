package tenancy

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policycompiler"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// TestPoliciesStayInTheTenant: an Antrea NetworkPolicy alice writes in
// alpha applies to nothing outside alpha. The API server refuses one whose
// appliedTo has a namespaceSelector (the CRD's validation: only a
// ClusterNetworkPolicy, which she may not create, reaches other
// Namespaces). A Group of alpha may select every Namespace (Groups are
// peers too), and the API server accepts a policy applied to it: what
// keeps that policy in alpha is the policy compiler, which the policy
// controller (and so every VM agent and agentless enforcement) uses. Fed
// what the API server holds, with VMs of the same labels in alpha and
// beta, it gives the policy's rules to alpha's VM only and reports
// AppliedToOutsideNamespace.
func TestPoliciesStayInTheTenant(t *testing.T) {
	prepare(t)
	ctx := t.Context()
	admin := adminClient(t)
	for _, e := range []*antreav1alpha2.ExternalEntity{entity("alpha", "web-a", "10.0.1.1"), entity("beta", "web-b", "10.0.2.1")} {
		if err := admin.Create(ctx, e); err != nil {
			t.Fatalf("creating ExternalEntity %s/%s: %v", e.Namespace, e.Name, err)
		}
	}
	alices := clientAs(t, alice)
	err := alices.Create(ctx, antreaPolicy("alpha", "every-ns", &metav1.LabelSelector{}))
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "only for ClusterNetworkPolicy") {
		t.Errorf("alice's policy with a namespaceSelector in appliedTo: %v, want refused as invalid", err)
	}
	group := &antreav1beta1.Group{ObjectMeta: metav1.ObjectMeta{Namespace: "alpha", Name: "every-web"},
		Spec: antreav1beta1.GroupSpec{NamespaceSelector: &metav1.LabelSelector{},
			ExternalEntitySelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "web"}}}}
	p := antreaPolicy("alpha", "every-web", nil)
	p.Spec.AppliedTo = []antreav1beta1.AppliedTo{{Group: group.Name}}
	for _, o := range []client.Object{group, p} {
		if err := alices.Create(ctx, o); err != nil {
			t.Fatalf("alice creating %T %s: %v", o, o.GetName(), err)
		}
	}

	// What the policy controller's informers would hold.
	compiler := policycompiler.New()
	var namespaces corev1.NamespaceList
	var entities antreav1alpha2.ExternalEntityList
	var groups antreav1beta1.GroupList
	var policies antreav1beta1.NetworkPolicyList
	for _, l := range []client.ObjectList{&namespaces, &entities, &groups, &policies} {
		if err := admin.List(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	for i := range namespaces.Items {
		ns := &namespaces.Items[i]
		if err := compiler.Upsert(&policycompiler.Namespace{Name: ns.Name, Labels: ns.Labels}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range entities.Items {
		if err := compiler.Upsert(&entities.Items[i]); err != nil {
			t.Fatal(err)
		}
	}
	for i := range groups.Items {
		if err := compiler.Upsert(&groups.Items[i]); err != nil {
			t.Fatal(err)
		}
	}
	for i := range policies.Items {
		if err := compiler.Upsert(&policies.Items[i]); err != nil {
			t.Fatal(err)
		}
	}

	ref := policyrules.PolicyRef{Kind: policyrules.KindNetworkPolicy, Namespace: "alpha", Name: "every-web"}
	if r, _ := compiler.Rules("alpha/web-a"); !hasRuleOf(r, ref) {
		t.Errorf("alpha's VM lacks alice's rule: %+v", r.Rules)
	}
	if r, ok := compiler.Rules("beta/web-b"); !ok || hasRuleOf(r, ref) {
		t.Errorf("beta's VM (known: %t) has alice's rule: %+v", ok, r.Rules)
	}
	st, ok := compiler.PolicyStatus(ref)
	if !ok || st.Endpoints != 1 || !slices.ContainsFunc(st.Issues, func(i policycompiler.Issue) bool {
		return i.Reason == policycompiler.ReasonAppliedToOutsideNamespace
	}) {
		t.Errorf("status of alice's policy: %+v (found %t), want 1 endpoint and %s", st, ok, policycompiler.ReasonAppliedToOutsideNamespace)
	}
}

func hasRuleOf(r policyrules.EndpointRules, ref policyrules.PolicyRef) bool {
	return slices.ContainsFunc(r.Rules, func(c policyrules.CompiledRule) bool { return c.Policy == ref })
}
