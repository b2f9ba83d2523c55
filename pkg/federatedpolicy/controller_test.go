package federatedpolicy

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federatedpolicy/translate"
	"antreaplus.io/antreaplus/pkg/policydistribution/policystatus"
	"antreaplus.io/antreaplus/test/framework"
)

const timeout = 30 * time.Second

var ctx = context.Background()

// derivedPolicy reads the derived NetworkPolicy of a federated policy.
func derivedPolicy(c client.Client, ns, name string) (*antreav1beta1.NetworkPolicy, error) {
	np := &antreav1beta1.NetworkPolicy{}
	return np, c.Get(ctx, types.NamespacedName{Namespace: ns, Name: translate.PolicyName(name)}, np)
}

func TestDerivedObjectsAndRemoteAddressChange(t *testing.T) {
	c := start(t)
	ns := clusters.Namespace(t, cluster)
	nicA := remoteEntity(ns, "member-1", "nic-a", "web", "10.1.0.5")
	create(t, c, localEntity(ns, "db", localNetwork, "192.168.0.5"), nicA, remoteEntity(ns, "member-3", "nic-b", "web", "10.3.0.5"),
		federatedPolicy(ns, "db", ingress("from-web", remoteRole("web"))))
	group := "fnp-db-ingress-0-peer-0"
	framework.Eventually(t, timeout, func() error {
		if err := hasCondition(fnp(t, c, ns, "db"), policyv1alpha1.ConditionTranslated, metav1.ConditionTrue, ReasonTranslated); err != nil {
			return err
		}
		return hasCondition(fnp(t, c, ns, "db"), policyv1alpha1.ConditionRemotePeersResolved, metav1.ConditionTrue, ReasonResolved)
	})
	np, err := derivedPolicy(c, ns, "db")
	if err != nil {
		t.Fatal(err)
	}
	from := np.Spec.Ingress[0].From
	if len(from) != 2 || from[0].ExternalEntitySelector == nil || from[0].Scope != "" || from[1].Group != group ||
		np.Labels[federationv1alpha1.LabelManagedBy] != policyv1alpha1.ManagedByMemberController || metav1.GetControllerOf(np).Kind != "FederatedNetworkPolicy" {
		t.Fatalf("derived policy %+v", np)
	}
	if cidrs, err := groupCIDRs(c, ns, group); err != nil || strings.Join(cidrs, " ") != "10.1.0.5/32 10.3.0.5/32" {
		t.Fatalf("group: %v %v", cidrs, err)
	}

	// A remote VM changes its IP: only the Group is rewritten.
	rv := np.ResourceVersion
	nicA.Spec.Endpoints[0].IP = "10.1.0.6"
	nicA.Spec.Addresses[0].IP = "10.1.0.6"
	if err := c.Update(ctx, nicA); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, timeout, func() error {
		cidrs, err := groupCIDRs(c, ns, group)
		if err == nil && strings.Join(cidrs, " ") != "10.1.0.6/32 10.3.0.5/32" {
			err = fmt.Errorf("group holds %v", cidrs)
		}
		return err
	})
	if np, err := derivedPolicy(c, ns, "db"); err != nil || np.ResourceVersion != rv {
		t.Errorf("the derived policy was rewritten (resourceVersion %s, was %s): %v", np.ResourceVersion, rv, err)
	}

	// The policy controller reports the derived policy enforced by a VM
	// agent and agentless: so does the federated policy.
	reportEnforced(t, c, ns, "db", "agent "+ns+"/vm-a=Realized; agentless=Realized")
	framework.Eventually(t, timeout, func() error {
		p := fnp(t, c, ns, "db")
		if err := hasCondition(p, policyv1alpha1.ConditionRealized, metav1.ConditionTrue, ReasonRealized); err != nil {
			return err
		}
		var names []string
		for _, e := range p.Status.EnforcementPoints {
			names = append(names, fmt.Sprintf("%s=%v", e.Name, e.Realized))
		}
		if p.Status.Phase != policyv1alpha1.FederatedPolicyRealized || strings.Join(names, " ") != "agent "+ns+"/vm-a=true agentless=true" {
			return fmt.Errorf("phase %s, points %v", p.Status.Phase, names)
		}
		return nil
	})

	// An input change that changes nothing derived writes nothing: the
	// policy, its status and its derived objects keep their resourceVersions.
	// (The write counter is shared with the clean-up of other tests'
	// Namespaces, which the same controller does meanwhile.)
	before, unchanged := versions(t, c, ns), testutil.ToFloat64(translations.WithLabelValues(resultUnchanged))
	nicA.Labels["note"] = "irrelevant"
	if err := c.Update(ctx, nicA); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, timeout, func() error {
		if testutil.ToFloat64(translations.WithLabelValues(resultUnchanged)) == unchanged {
			return fmt.Errorf("no translation after the entity's label changed")
		}
		return nil
	})
	time.Sleep(time.Second) // a write, if any, would follow its translation at once
	if after := versions(t, c, ns); after != before {
		t.Errorf("an input change that changes nothing wrote: resourceVersions %s, were %s", after, before)
	}
}

// versions lists the resourceVersions of the federated policies, derived
// NetworkPolicies and Groups of ns.
func versions(t *testing.T, c client.Client, ns string) string {
	t.Helper()
	var out []string
	for _, list := range []client.ObjectList{&policyv1alpha1.FederatedNetworkPolicyList{}, &antreav1beta1.NetworkPolicyList{}, &antreav1beta1.GroupList{}} {
		if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range items {
			m, _ := meta.Accessor(o)
			out = append(out, m.GetName()+"@"+m.GetResourceVersion())
		}
	}
	return strings.Join(out, " ")
}

// reportEnforced writes the derived policy's status as the policy
// controller does, for its current generation.
func reportEnforced(t *testing.T, c client.Client, ns, name, enforcers string) {
	t.Helper()
	np, err := derivedPolicy(c, ns, name)
	if err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	framework.UpdateStatus(t, c, np, func() {
		np.Status = antreav1beta1.NetworkPolicyStatus{Phase: antreav1beta1.NetworkPolicyRealized, ObservedGeneration: np.Generation,
			CurrentNodesRealized: 2, DesiredNodesRealized: 2, Conditions: []antreav1beta1.NetworkPolicyCondition{
				{Type: antreav1beta1.NetworkPolicyConditionRealizable, Status: metav1.ConditionTrue, Reason: policystatus.ReasonCompiled, LastTransitionTime: now},
				{Type: policystatus.ConditionEnforcers, Status: metav1.ConditionTrue, Reason: policystatus.ReasonEnforcersRealized, Message: enforcers, LastTransitionTime: now},
			}}
	})
}

func TestRemotePodPeersRefused(t *testing.T) {
	c := start(t)
	ns := clusters.Namespace(t, cluster)
	pods := antreav1beta1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{}, Scope: antreav1beta1.ScopeClusterSet}
	block := antreav1beta1.NetworkPolicyPeer{IPBlock: &antreav1beta1.IPBlock{CIDR: "192.168.0.0/24"}}
	create(t, c, federatedPolicy(ns, "pods", ingress("mixed", pods, block), ingress("only-pods", pods)))
	framework.Eventually(t, timeout, func() error {
		p := fnp(t, c, ns, "pods")
		if err := hasCondition(p, policyv1alpha1.ConditionPeersAccepted, metav1.ConditionFalse, translate.ReasonRemotePodsRefused); err != nil {
			return err
		}
		if len(p.Status.RefusedPeers) != 2 || !strings.Contains(p.Status.RefusedPeers[0].Message, "federated Service") {
			return fmt.Errorf("refused peers %+v", p.Status.RefusedPeers)
		}
		return hasCondition(p, policyv1alpha1.ConditionTranslated, metav1.ConditionTrue, ReasonTranslated)
	})
	// Nothing is realised from the refused peers; the rule of refused
	// peers only is left out, not widened.
	np, err := derivedPolicy(c, ns, "pods")
	if err != nil {
		t.Fatal(err)
	}
	if len(np.Spec.Ingress) != 1 || len(np.Spec.Ingress[0].From) != 1 || np.Spec.Ingress[0].From[0].IPBlock == nil {
		t.Errorf("derived rules %+v", np.Spec.Ingress)
	}
}

func TestFederatedServiceAwaitedThenResolved(t *testing.T) {
	c := start(t)
	ns := clusters.Namespace(t, cluster)
	create(t, c, federatedPolicy(ns, "client", appliedToPods(), egressToFederated("to-orders", "orders")))
	awaited := "fnp-client-egress-0-svc-0-none"
	framework.Eventually(t, timeout, func() error {
		p := fnp(t, c, ns, "client")
		if err := hasCondition(p, policyv1alpha1.ConditionRemotePeersResolved, metav1.ConditionFalse, ReasonAwaitingRemoteSources); err != nil {
			return err
		}
		if c := p.Status.Conditions; !strings.Contains(conditionMessage(c, policyv1alpha1.ConditionRemotePeersResolved), "no member exports Service "+ns+"/orders") {
			return fmt.Errorf("conditions %+v", c)
		}
		// Pods only, and no Antrea in this cluster: nothing enforces it.
		if err := hasCondition(p, policyv1alpha1.ConditionRealized, metav1.ConditionFalse, ReasonAntreaNotInstalled); err != nil {
			return err
		}
		if cidrs, err := groupCIDRs(c, ns, awaited); err != nil || len(cidrs) != 0 {
			return fmt.Errorf("awaited group: %v %w", cidrs, err)
		}
		return nil
	})

	// A member exports it: the federation imports it here.
	create(t, c, serviceImport(ns, "orders", "10.96.0.99"), importedSlice(ns, "orders", "member-1", 31080, "172.18.0.2", "172.18.0.3"))
	framework.Eventually(t, timeout, func() error {
		p := fnp(t, c, ns, "client")
		if err := hasCondition(p, policyv1alpha1.ConditionRemotePeersResolved, metav1.ConditionTrue, ReasonResolved); err != nil {
			return err
		}
		if _, err := groupCIDRs(c, ns, awaited); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the awaited Group is still there: %w", err)
		}
		nodes, err := groupCIDRs(c, ns, "fnp-client-egress-0-svc-0-tcp31080")
		if err != nil || strings.Join(nodes, " ") != "172.18.0.2/32 172.18.0.3/32" {
			return fmt.Errorf("node port group: %v %w", nodes, err)
		}
		np, err := derivedPolicy(c, ns, "client")
		if err != nil {
			return err
		}
		var rules []string
		for _, r := range np.Spec.Egress {
			rules = append(rules, fmt.Sprintf("%s:%d->%s", r.Name, r.Ports[0].Port.IntVal, r.To[0].Group))
		}
		if want := "to-orders-1:31080->fnp-client-egress-0-svc-0-tcp31080 to-orders-2:80->fnp-client-egress-0-svc-0-tcp80"; strings.Join(rules, " ") != want {
			return fmt.Errorf("rules %v; want %s", rules, want)
		}
		return nil
	})
}

func conditionMessage(conds []metav1.Condition, typ string) string {
	for _, c := range conds {
		if c.Type == typ {
			return c.Message
		}
	}
	return ""
}
