package federatedpolicy

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
)

func TestTenancy(t *testing.T) {
	c := start(t)
	a, b := clusters.Namespace(t, cluster), clusters.Namespace(t, cluster)
	nsB := &corev1.Namespace{}
	if err := c.Get(ctx, types.NamespacedName{Name: b}, nsB); err != nil {
		t.Fatal(err)
	}
	nsB.Labels["tenant"] = "b-" + b
	if err := c.Update(ctx, nsB); err != nil {
		t.Fatal(err)
	}
	create(t, c, localEntity(a, "db", localNetwork, "192.168.0.6"), remoteEntity(a, "member-1", "web", "web", "10.1.1.1"), remoteEntity(b, "member-1", "web", "web", "10.1.2.1"),
		federatedPolicy(a, "db", ingress("own", remoteRole("web"))))
	framework.Eventually(t, timeout, func() error {
		cidrs, err := groupCIDRs(c, a, "fnp-db-ingress-0-peer-0")
		if err == nil && strings.Join(cidrs, " ") != "10.1.1.1/32" {
			err = fmt.Errorf("tenant a's group holds %v", cidrs)
		}
		return err
	})

	// Tenant b's entities are reached only by selecting its Namespace.
	// (The controller writes the policy's status meanwhile: the update retries conflicts.)
	p := fnp(t, c, a, "db")
	other := remoteRole("web")
	other.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"tenant": "b-" + b}}
	framework.Update(t, c, p, func() {
		p.Spec.Ingress = append(p.Spec.Ingress, antreav1beta1.Rule{Name: "from-b", Action: ptr.To(antreav1beta1.RuleActionAllow), From: []antreav1beta1.NetworkPolicyPeer{other}})
	})
	framework.Eventually(t, timeout, func() error {
		cidrs, err := groupCIDRs(c, a, "fnp-db-ingress-1-peer-0")
		if err == nil && strings.Join(cidrs, " ") != "10.1.2.1/32" {
			err = fmt.Errorf("the group of tenant b's entities holds %v", cidrs)
		}
		return err
	})
	// Everything derived lives in tenant a: it applies to nothing of b.
	for _, list := range []client.ObjectList{&antreav1beta1.NetworkPolicyList{}, &antreav1beta1.GroupList{}} {
		if err := c.List(ctx, list, client.InNamespace(b)); err != nil {
			t.Fatal(err)
		}
		if n := len(itemsOf(list)); n != 0 {
			t.Errorf("%d derived objects in tenant b's Namespace", n)
		}
	}
}

func itemsOf(list client.ObjectList) []string {
	var out []string
	switch l := list.(type) {
	case *antreav1beta1.NetworkPolicyList:
		for _, i := range l.Items {
			out = append(out, i.Name)
		}
	case *antreav1beta1.GroupList:
		for _, i := range l.Items {
			out = append(out, i.Name)
		}
	}
	return out
}

func TestNameTakenThenFreed(t *testing.T) {
	c := start(t)
	ns := clusters.Namespace(t, cluster)
	theirs := &antreav1beta1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fnp-db"},
		Spec: antreav1beta1.NetworkPolicySpec{Priority: 9, AppliedTo: []antreav1beta1.AppliedTo{{PodSelector: &metav1.LabelSelector{}}}}}
	create(t, c, theirs, federatedPolicy(ns, "db", ingress("from-web", remoteRole("web"))))
	framework.Eventually(t, timeout, func() error {
		return hasCondition(fnp(t, c, ns, "db"), policyv1alpha1.ConditionTranslated, metav1.ConditionFalse, ReasonNameTaken)
	})
	np, err := derivedPolicy(c, ns, "db")
	if err != nil || np.ResourceVersion != theirs.ResourceVersion || np.Spec.Priority != 9 {
		t.Fatalf("the unmanaged policy was touched: %+v %v", np, err)
	}
	if fnp(t, c, ns, "db").Status.Phase != policyv1alpha1.FederatedPolicyFailed {
		t.Error("a policy whose name is taken is not Failed")
	}

	if err := c.Delete(ctx, theirs); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, timeout, func() error {
		return hasCondition(fnp(t, c, ns, "db"), policyv1alpha1.ConditionTranslated, metav1.ConditionTrue, ReasonTranslated)
	})
	if np, err := derivedPolicy(c, ns, "db"); err != nil || np.Labels[federationv1alpha1.LabelManagedBy] != policyv1alpha1.ManagedByMemberController {
		t.Errorf("derived policy %+v: %v", np, err)
	}
}

func TestDeletionRemovesDerivedObjects(t *testing.T) {
	c := start(t)
	ns := clusters.Namespace(t, cluster)
	p := federatedPolicy(ns, "gone", ingress("a", remoteRole("web")), ingress("b", remoteRole("build")))
	create(t, c, p)
	framework.Eventually(t, timeout, func() error {
		return hasCondition(fnp(t, c, ns, "gone"), policyv1alpha1.ConditionTranslated, metav1.ConditionTrue, ReasonTranslated)
	})
	// (The garbage collector deletes them too, through their owner
	// reference, but it discovers new CRDs only every 30 s: in a fresh
	// cluster that takes up to a minute.)
	if err := c.Delete(ctx, p); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, timeout, func() error {
		var left []string
		for _, list := range []client.ObjectList{&antreav1beta1.NetworkPolicyList{}, &antreav1beta1.GroupList{}} {
			if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
				return err
			}
			left = append(left, itemsOf(list)...)
		}
		if len(left) > 0 {
			return fmt.Errorf("derived objects left: %v", left)
		}
		return nil
	})
}

// The membership labels decide whether the local part of a peer holds.
func TestMemberLabelsSelectLocalPart(t *testing.T) {
	c := start(t)
	ns := clusters.Namespace(t, cluster)
	peer := antreav1beta1.NetworkPolicyPeer{Scope: antreav1beta1.ScopeClusterSet, ExternalEntitySelector: &metav1.LabelSelector{
		MatchLabels: map[string]string{"tag.cloud.antreaplus.io/role": "web", federationv1alpha1.MemberLabelPrefix + "region": "eu"}}}
	create(t, c, federatedPolicy(ns, "eu", ingress("from-eu", peer)))
	framework.Eventually(t, timeout, func() error {
		np, err := derivedPolicy(c, ns, "eu")
		if err != nil {
			return err
		}
		from := np.Spec.Ingress[0].From
		if len(from) != 2 || from[0].ExternalEntitySelector == nil || !slices.Equal(keys(from[0].ExternalEntitySelector.MatchLabels), []string{"tag.cloud.antreaplus.io/role"}) {
			return fmt.Errorf("peers %+v", from)
		}
		return nil
	})
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
