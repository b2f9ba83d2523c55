package federatedpolicy

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federatedpolicy/translate"
	"antreaplus.io/antreaplus/pkg/policydistribution/policystatus"
)

// derived is a derived policy at generation 2 whose status says phase at
// observed generation, with an Enforcers condition of enforcers.
func derived(phase antreav1beta1.NetworkPolicyPhase, observed int64, enforcers string) *antreav1beta1.NetworkPolicy {
	np := &antreav1beta1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "fnp-web", Generation: 2}}
	np.Status = antreav1beta1.NetworkPolicyStatus{Phase: phase, ObservedGeneration: observed, CurrentNodesRealized: 1, DesiredNodesRealized: 2,
		Conditions: []antreav1beta1.NetworkPolicyCondition{
			{Type: antreav1beta1.NetworkPolicyConditionRealizationFailure, Status: metav1.ConditionTrue, Message: "t/c (agentless): DenyNotExpressible"},
			{Type: policystatus.ConditionEnforcers, Message: enforcers},
		}}
	return np
}

func TestRealize(t *testing.T) {
	vms := translate.Report{AppliesToExternalEntities: true}
	pods := translate.Report{AppliesToPods: true}
	both := translate.Report{AppliesToPods: true, AppliesToExternalEntities: true}
	two := "agent t/vm-a=Realized; agentless=Pending:AgentlessBehind"
	cases := []struct {
		name   string
		rep    translate.Report
		out    outcome
		antrea bool
		phase  policyv1alpha1.FederatedPolicyPhase
		reason string
		points string // name=realized/reason, sorted
	}{
		{"not translated", vms, outcome{failure: &translate.Problem{Reason: ReasonNameTaken}}, false, policyv1alpha1.FederatedPolicyFailed, ReasonNotTranslated, ""},
		{"nothing to enforce", vms, outcome{}, false, policyv1alpha1.FederatedPolicyRealized, ReasonNothingToEnforce, ""},
		{"status of an older generation", vms, outcome{derived: derived(antreav1beta1.NetworkPolicyRealized, 1, two)}, false,
			policyv1alpha1.FederatedPolicyPending, ReasonPending, ""},
		{"realizing", vms, outcome{derived: derived(antreav1beta1.NetworkPolicyRealizing, 2, two)}, false,
			policyv1alpha1.FederatedPolicyPending, ReasonPending, "agent t/vm-a=true/ agentless=false/AgentlessBehind"},
		{"realized", vms, outcome{derived: derived(antreav1beta1.NetworkPolicyRealized, 2, "agent t/vm-a=Realized; agentless=Realized:Approximated")}, false,
			policyv1alpha1.FederatedPolicyRealized, ReasonRealized, "agent t/vm-a=true/ agentless=true/Approximated"},
		{"failed", vms, outcome{derived: derived(antreav1beta1.NetworkPolicyFailed, 2, "agentless=Failed:DenyNotExpressible")}, false,
			policyv1alpha1.FederatedPolicyFailed, ReasonEnforcementFailed, "agentless=false/DenyNotExpressible"},
		{"pods only without Antrea", pods, outcome{derived: derived(antreav1beta1.NetworkPolicyRealized, 2, "")}, false,
			policyv1alpha1.FederatedPolicyFailed, ReasonAntreaNotInstalled, "antrea=false/AntreaNotInstalled"},
		{"pods only with Antrea", pods, outcome{derived: derived(antreav1beta1.NetworkPolicyRealized, 2, "")}, true,
			policyv1alpha1.FederatedPolicyRealized, ReasonRealized, "antrea=true/"},
		{"pods with Antrea, not observed yet", pods, outcome{derived: derived("", 0, "")}, true,
			policyv1alpha1.FederatedPolicyPending, ReasonPending, "antrea=false/Pending"},
		{"pods and VMs without Antrea: the VMs decide", both, outcome{derived: derived(antreav1beta1.NetworkPolicyRealized, 2, "agent t/vm-a=Realized")}, false,
			policyv1alpha1.FederatedPolicyRealized, ReasonRealized, "agent t/vm-a=true/ antrea=false/AntreaNotInstalled"},
	}
	for _, tc := range cases {
		r := realize(tc.rep, tc.out, tc.antrea)
		var points []string
		for _, p := range r.points {
			points = append(points, p.Name+"="+map[bool]string{true: "true", false: "false"}[p.Realized]+"/"+p.Reason)
		}
		if r.phase != tc.phase || r.reason != tc.reason || strings.Join(points, " ") != tc.points {
			t.Errorf("%s: phase %s reason %s points %q (%s); want %s %s %q", tc.name, r.phase, r.reason, strings.Join(points, " "), r.message, tc.phase, tc.reason, tc.points)
		}
		if (r.status == metav1.ConditionTrue) != (r.phase == policyv1alpha1.FederatedPolicyRealized) {
			t.Errorf("%s: Realized=%s with phase %s", tc.name, r.status, r.phase)
		}
	}
}

func TestComputeStatus(t *testing.T) {
	p := &policyv1alpha1.FederatedNetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 3}}
	rep := translate.Report{
		AppliesToExternalEntities: true,
		RemoteSources: []policyv1alpha1.RemoteSourceStatus{
			{Rule: "egress[0]/to-orders", Kind: translate.KindFederatedService, Name: "shop/orders", Resolved: true, Addresses: 2},
			{Rule: "ingress[0]", Kind: translate.KindRemoteEntities, Name: "role=build", Message: "no remote entity matches yet"},
		},
		RefusedPeers: []policyv1alpha1.RefusedPeer{{Rule: "ingress[1]", Peer: 0, Reason: translate.ReasonRemotePodsRefused, Message: "no"}},
		DroppedRules: []string{"ingress[1]"},
	}
	out := outcome{derived: derived(antreav1beta1.NetworkPolicyRealized, 2, "agentless=Realized"), groups: 3}
	st := computeStatus(p, rep, out, false)
	want := map[string]string{
		policyv1alpha1.ConditionTranslated:          "True/" + ReasonTranslated + "/NetworkPolicy fnp-web and 3 Groups written",
		policyv1alpha1.ConditionRemotePeersResolved: "False/" + ReasonAwaitingRemoteSources + "/waiting for 1 of 2 remote sources",
		policyv1alpha1.ConditionPeersAccepted:       "False/" + translate.ReasonRemotePodsRefused + "/1 peer refused",
		policyv1alpha1.ConditionRealized:            "True/" + ReasonRealized + "/enforced on 1 of 2",
	}
	for typ, w := range want {
		c := meta.FindStatusCondition(st.Conditions, typ)
		parts := strings.SplitN(w, "/", 3)
		if c == nil || string(c.Status) != parts[0] || c.Reason != parts[1] || !strings.Contains(c.Message, parts[2]) || c.ObservedGeneration != 3 {
			t.Errorf("%s = %+v; want %s", typ, c, w)
		}
	}
	if st.ObservedGeneration != 3 || st.Phase != policyv1alpha1.FederatedPolicyRealized || st.DerivedPolicy != "fnp-web" ||
		len(st.RemoteSources) != 2 || len(st.RefusedPeers) != 1 || len(st.EnforcementPoints) != 1 {
		t.Errorf("status %+v", st)
	}
	// A second computation on the written status changes nothing.
	p.Status = st
	if again := computeStatus(p, rep, out, false); !equality.Semantic.DeepEqual(again, st) {
		t.Errorf("status changed on recomputation:\n%+v\n%+v", again, st)
	}
	// A translation problem: nothing resolved or accepted can be said.
	failed := computeStatus(p, translate.Report{Problem: &translate.Problem{Reason: translate.ReasonTooLarge, Message: "big"}},
		outcome{failure: &translate.Problem{Reason: translate.ReasonTooLarge, Message: "big"}}, false)
	if c := meta.FindStatusCondition(failed.Conditions, policyv1alpha1.ConditionRemotePeersResolved); c.Status != metav1.ConditionUnknown || failed.Phase != policyv1alpha1.FederatedPolicyFailed {
		t.Errorf("failed translation: %+v", failed)
	}
}
