package gather

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policycompiler"
	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/pkg/trace"
)

// TestCompileDecidesAsTheFullCompile: World.Compile compiles a member's
// policies over the flow's entities and those sharing its addresses only;
// every verdict and deciding rule must be the one the full compile (every
// entity and Pod, as the policy controller holds them) gives. The member
// has what a narrowing could get wrong: entities of two Namespaces at the
// same addresses (one selected by a rule, one not), Pods at a VM's
// address, Groups with child Groups, ipBlocks with exceptions, named
// ports, tiers, Pass and baseline rules.
func TestCompileDecidesAsTheFullCompile(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	m := &Member{Context: "member-1", ClusterID: "member-1", unrealized: map[policyrules.PolicyRef]string{}}
	const n = 120
	for _, ns := range []string{"a", "b"} {
		m.policies = append(m.policies, policycompiler.Convert(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"env": ns}}}))
	}
	for i := range n {
		ns := []string{"a", "b"}[i%2]
		// Entities i and i+1 share an address: 10.0.0.(i/2).
		e := &antreav1alpha2.ExternalEntity{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("vm-%d", i), Namespace: ns, Labels: map[string]string{
				cloudv1alpha1.LabelEntityKind: cloudv1alpha1.EntityKindVirtualMachine, "app": fmt.Sprintf("app-%d", i%7), "tier": fmt.Sprintf("t-%d", i%3)}},
			Spec: antreav1alpha2.ExternalEntitySpec{ExternalNode: fmt.Sprintf("vm-%d", i),
				Endpoints: []antreav1alpha2.Endpoint{{IP: fmt.Sprintf("10.0.0.%d", i/2)}},
				Ports:     []antreav1alpha2.NamedPort{{Name: "web", Protocol: corev1.ProtocolTCP, Port: int32(8000 + i%4)}}},
		}
		m.entities = append(m.entities, *e)
	}
	for i := range 10 {
		m.pods = append(m.pods, corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%d", i), Namespace: "a", Labels: map[string]string{"app": fmt.Sprintf("app-%d", i%7)}},
			Status: corev1.PodStatus{PodIPs: []corev1.PodIP{{IP: fmt.Sprintf("10.0.0.%d", i*5)}}}})
	}
	sel := func(k, v string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{k: v}}
	}
	action := func(a antreav1beta1.RuleAction) *antreav1beta1.RuleAction { return &a }
	tcp := corev1.ProtocolTCP
	port := func(p intstr.IntOrString) []antreav1beta1.NetworkPolicyPort {
		return []antreav1beta1.NetworkPolicyPort{{Protocol: &tcp, Port: &p}}
	}
	m.policies = append(m.policies,
		&antreav1beta1.Tier{ObjectMeta: metav1.ObjectMeta{Name: "securityops"}, Spec: antreav1beta1.TierSpec{Priority: 100}},
		&antreav1beta1.Group{ObjectMeta: metav1.ObjectMeta{Name: "tier-0", Namespace: "a"}, Spec: antreav1beta1.GroupSpec{ExternalEntitySelector: sel("tier", "t-0")}},
		&antreav1beta1.Group{ObjectMeta: metav1.ObjectMeta{Name: "tier-1", Namespace: "a"}, Spec: antreav1beta1.GroupSpec{ExternalEntitySelector: sel("tier", "t-1")}},
		&antreav1beta1.Group{ObjectMeta: metav1.ObjectMeta{Name: "parent", Namespace: "a"}, Spec: antreav1beta1.GroupSpec{ChildGroups: []antreav1beta1.ClusterGroupReference{"tier-0", "tier-1"}}},
	)
	for j := range 40 {
		ns := []string{"a", "b"}[j%2]
		var from []antreav1beta1.NetworkPolicyPeer
		switch j % 5 {
		case 0:
			from = []antreav1beta1.NetworkPolicyPeer{{ExternalEntitySelector: sel("tier", fmt.Sprintf("t-%d", j%3))}}
		case 1:
			from = []antreav1beta1.NetworkPolicyPeer{{Group: "parent"}}
			ns = "a"
		case 2:
			from = []antreav1beta1.NetworkPolicyPeer{{IPBlock: &antreav1beta1.IPBlock{CIDR: "10.0.0.0/26", Except: []string{"10.0.0.8/29"}}}}
		case 3:
			from = []antreav1beta1.NetworkPolicyPeer{{PodSelector: sel("app", fmt.Sprintf("app-%d", j%7))}}
		case 4:
			from = []antreav1beta1.NetworkPolicyPeer{{ExternalEntitySelector: sel("app", fmt.Sprintf("app-%d", j%7)), NamespaceSelector: sel("env", "b")}}
		}
		p := port(intstr.FromInt32(int32(8000 + j%4)))
		if j%6 == 0 {
			p = port(intstr.FromString("web"))
		}
		acts := []antreav1beta1.RuleAction{antreav1beta1.RuleActionAllow, antreav1beta1.RuleActionDrop, antreav1beta1.RuleActionPass, antreav1beta1.RuleActionReject}
		tier := []string{"application", "securityops", "baseline"}[j%3]
		act := acts[j%4]
		if tier == "baseline" && act == antreav1beta1.RuleActionPass {
			act = antreav1beta1.RuleActionDrop
		}
		m.policies = append(m.policies, &antreav1beta1.NetworkPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("np-%d", j), Namespace: ns},
			Spec: antreav1beta1.NetworkPolicySpec{Tier: tier, Priority: float64(1 + j%9),
				AppliedTo: []antreav1beta1.AppliedTo{{ExternalEntitySelector: sel("app", fmt.Sprintf("app-%d", (j*3)%7))}},
				Ingress:   []antreav1beta1.Rule{{Action: action(act), Ports: p, From: from}},
				Egress: []antreav1beta1.Rule{{Action: action(acts[(j+1)%4]), Ports: p,
					To: []antreav1beta1.NetworkPolicyPeer{{ExternalEntitySelector: sel("tier", fmt.Sprintf("t-%d", (j+1)%3))}}}},
			},
		})
	}
	full := policycompiler.New()
	all := append([]any{}, m.policies...)
	for i := range m.entities {
		all = append(all, &m.entities[i])
	}
	for i := range m.pods {
		all = append(all, policycompiler.Convert(&m.pods[i]))
	}
	if err := full.Upsert(all...); err != nil {
		t.Fatal(err)
	}
	w := &World{Members: []*Member{m}}
	decided := map[trace.Verdict]int{}
	for run := range 250 {
		src, dst := m.workload(&m.entities[rng.IntN(n)]), m.workload(&m.entities[rng.IntN(n)])
		q := trace.Query{Protocol: policyrules.ProtocolTCP, Port: int32(8000 + rng.IntN(4)), Flat: func(string, string) bool { return true }}
		if err := w.Compile(&src, &dst); err != nil {
			t.Fatal(err)
		}
		q.Source, q.Destination = src, dst
		narrowed := trace.Compute(q)
		for _, wl := range []*trace.Workload{&q.Source, &q.Destination} {
			p := *wl.Point
			rules, _ := full.Rules(p.Endpoint)
			p.Rules = rules.Rules
			wl.Point = &p
		}
		want := trace.Compute(q)
		if narrowed.Verdict != want.Verdict || !reflect.DeepEqual(deciding(narrowed), deciding(want)) {
			t.Fatalf("run %d, %s -> %s port %d: narrowed compile says %s %v, the full compile %s %v", run, src.Name, dst.Name, q.Port,
				narrowed.Verdict, deciding(narrowed), want.Verdict, deciding(want))
		}
		decided[want.Verdict]++
	}
	if decided[trace.Allowed] == 0 || decided[trace.Dropped]+decided[trace.Rejected] == 0 {
		t.Fatalf("the flows were not varied enough to compare: %v", decided)
	}
}

// deciding are the rules each step of a trace names.
func deciding(r trace.Result) []string {
	var out []string
	for _, s := range r.Steps {
		if s.Rule != nil {
			out = append(out, s.Kind+": "+s.Rule.String())
		} else if s.Result != "" {
			out = append(out, s.Kind+": "+string(s.Result)+" "+s.Note)
		}
	}
	return out
}
