package policycompiler_test

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policycompiler"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// A cluster policy lets the web VMs reach the db VM on 5432 and drops
// everything else to it. The compiler gives the db VM its rules; a change
// (a second web VM) recompiles only what it touches; Evaluate is what an
// enforcement point must do with a packet.
func Example() {
	role := func(r string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"role": r}}
	}
	entity := func(name, r, ip string) *antreav1alpha2.ExternalEntity {
		return &antreav1alpha2.ExternalEntity{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Labels: map[string]string{"role": r}},
			Spec:       antreav1alpha2.ExternalEntitySpec{Endpoints: []antreav1alpha2.Endpoint{{IP: ip}}, ExternalNode: "vm-" + name},
		}
	}
	policy := &antreav1beta1.ClusterNetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: antreav1beta1.ClusterNetworkPolicySpec{
			Tier: "securityops", Priority: 5,
			AppliedTo: []antreav1beta1.AppliedTo{{ExternalEntitySelector: role("db")}},
			Ingress: []antreav1beta1.Rule{
				{Name: "from-web", Action: ptr.To(antreav1beta1.RuleActionAllow),
					From:  []antreav1beta1.NetworkPolicyPeer{{ExternalEntitySelector: role("web")}},
					Ports: []antreav1beta1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(5432))}}},
				{Name: "rest", Action: ptr.To(antreav1beta1.RuleActionDrop)},
			},
		},
	}

	c := policycompiler.New()
	// Pointers to objects, in any order (what informers hand over).
	if err := c.Upsert(&policycompiler.Namespace{Name: "shop"}, policy, entity("db", "db", "10.0.0.7"), entity("web-1", "web", "10.0.0.5")); err != nil {
		fmt.Println(err)
		return
	}
	for _, ep := range c.Changed() { // endpoints whose rules changed since the last call
		rules, ok := c.Rules(ep) // !ok: the ExternalEntity was deleted
		if !ok {
			continue
		}
		fmt.Println(ep, "on", rules.ExternalNode)
		for _, r := range rules.Rules {
			fmt.Println(" ", r.Direction, r.Action, r.Policy, r.RuleName, r.Peers, r.AnyPeer)
		}
	}
	_ = c.Upsert(entity("web-2", "web", "10.0.0.6")) // one change ...
	fmt.Println("changed:", c.Changed())             // ... recomputes only what it touched

	st, _ := c.PolicyStatus(policyrules.PolicyRef{Kind: policyrules.KindClusterNetworkPolicy, Name: "db"})
	fmt.Println("realized:", st.Realized, "endpoints:", st.Endpoints)

	rules, _ := c.Rules("shop/db")
	for _, peer := range []string{"10.0.0.6", "10.0.0.9"} {
		d := policyrules.Evaluate(rules.Rules, policyrules.Packet{Direction: policyrules.DirectionIngress,
			Peer: netip.MustParseAddr(peer), Protocol: policyrules.ProtocolTCP, Port: 5432})
		fmt.Println(peer, "->", d.Action)
	}
	// Output:
	// shop/db on vm-db
	//   Ingress Allow AntreaClusterNetworkPolicy:db from-web [10.0.0.5/32] false
	//   Ingress Drop AntreaClusterNetworkPolicy:db rest [] true
	// shop/web-1 on vm-web-1
	// changed: [shop/db shop/web-2]
	// realized: true endpoints: 1
	// 10.0.0.6 -> Allow
	// 10.0.0.9 -> Drop
}
