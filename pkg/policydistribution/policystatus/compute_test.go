package policystatus

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policycompiler"
	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

var web = wire.PolicyRef{Kind: string(policyrules.KindNetworkPolicy), Namespace: "t", Name: "web"}

func agentlessStatus(gen uint64, eps ...wire.EndpointRealization) policydistribution.AgentlessStatus {
	return policydistribution.AgentlessStatus{Report: wire.AgentlessReport{AppliedEpoch: "e", AppliedGeneration: gen, Endpoints: eps}}
}

func TestPoints(t *testing.T) {
	target := Target{Epoch: "e", Generation: 10}
	drop := wire.Finding{Policy: web, Rule: "deny-ssh", Severity: wire.SeverityUnrealized, Reason: "DenyNotExpressible", Message: "no"}
	other := wire.Finding{Policy: wire.PolicyRef{Kind: web.Kind, Namespace: "t", Name: "other"}, Severity: wire.SeverityUnrealized, Reason: "X"}
	reject := wire.Finding{Policy: web, Severity: wire.SeverityApproximated, Reason: "RejectEnforcedAsDrop", Message: "silently"}
	vpc := wire.Finding{Severity: wire.SeverityUnrealized, Reason: "NotSupported", Message: "azure"}
	report := func(gen uint64, applyErr string) *wire.Report {
		return &wire.Report{AppliedEpoch: "e", AppliedGeneration: gen, ApplyError: applyErr}
	}
	cases := []struct {
		name   string
		point  Point
		state  State
		reason string
	}{
		{"agent never reported", AgentPoint("t/nic-a", "t/vm-a", policydistribution.AgentStatus{}, false, target), StatePending, ReasonAgentNotConnected},
		{"agent behind", AgentPoint("t/nic-a", "t/vm-a", policydistribution.AgentStatus{Report: report(9, "")}, true, target), StatePending, ReasonAgentBehind},
		{"agent of another epoch", AgentPoint("t/nic-a", "t/vm-a", policydistribution.AgentStatus{Report: &wire.Report{AppliedEpoch: "old", AppliedGeneration: 99}}, true, target), StatePending, ReasonAgentBehind},
		{"agent failed", AgentPoint("t/nic-a", "t/vm-a", policydistribution.AgentStatus{Report: report(10, "nft: no")}, true, target), StateFailed, ReasonApplyFailed},
		{"agent realised", AgentPoint("t/nic-a", "t/vm-a", policydistribution.AgentStatus{Report: report(12, "")}, true, target), StateRealized, "Realized"},
		{"agentless never reported", AgentlessPoint("t/nic-b", web, policydistribution.AgentlessStatus{}, false, target), StatePending, ReasonAgentlessNotReported},
		{"agentless behind", AgentlessPoint("t/nic-b", web, agentlessStatus(9), true, target), StatePending, ReasonAgentlessBehind},
		{"agentless realised", AgentlessPoint("t/nic-b", web, agentlessStatus(10), true, target), StateRealized, "Realized"},
		{"agentless: another policy's finding", AgentlessPoint("t/nic-b", web, agentlessStatus(10, wire.EndpointRealization{Name: "t/nic-b", Findings: []wire.Finding{other}}), true, target), StateRealized, "Realized"},
		{"agentless: a drop it cannot express", AgentlessPoint("t/nic-b", web, agentlessStatus(10, wire.EndpointRealization{Name: "t/nic-b", Findings: []wire.Finding{reject, drop}}), true, target), StateFailed, "DenyNotExpressible"},
		{"agentless: the VPC failed", AgentlessPoint("t/nic-b", web, agentlessStatus(10, wire.EndpointRealization{Name: "t/nic-a"}, wire.EndpointRealization{Name: "t/nic-b", Findings: []wire.Finding{vpc}}), true, target), StateFailed, "NotSupported"},
		{"agentless: a reject as a drop", AgentlessPoint("t/nic-b", web, agentlessStatus(10, wire.EndpointRealization{Name: "t/nic-b", Findings: []wire.Finding{reject}}), true, target), StateRealized, ReasonAgentlessApproximated},
	}
	for _, tc := range cases {
		if tc.point.State != tc.state || tc.point.Reason != tc.reason {
			t.Errorf("%s: %s/%s (%s); want %s/%s", tc.name, tc.point.State, tc.point.Reason, tc.point.Message, tc.state, tc.reason)
		}
	}
}

func TestCompute(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	ok := &policycompiler.PolicyStatus{Realized: true}
	bad := &policycompiler.PolicyStatus{Issues: []policycompiler.Issue{{Severity: policycompiler.SeverityError, Reason: policycompiler.ReasonTierNotFound, Message: "tier x"}}}
	realized := Point{Endpoint: "t/a", Enforcer: "agentless", State: StateRealized}
	pending := Point{Endpoint: "t/b", Enforcer: "agent t/vm", State: StatePending, Reason: ReasonAgentBehind}
	failed := Point{Endpoint: "t/c", Enforcer: "agentless", State: StateFailed, Reason: "DenyNotExpressible", Message: "drop"}
	cases := []struct {
		name                string
		in                  Input
		phase               antreav1beta1.NetworkPolicyPhase
		current, desired    int32
		realizable, failure metav1.ConditionStatus
		message             string // in the failure condition
	}{
		{"not compiled yet", Input{}, antreav1beta1.NetworkPolicyPending, 0, 0, metav1.ConditionUnknown, "", ""},
		{"no enforcement point", Input{Compiled: ok, Generation: 3}, antreav1beta1.NetworkPolicyRealized, 0, 0, metav1.ConditionTrue, metav1.ConditionFalse, "enforced on 0 of 0"},
		{"realised everywhere", Input{Compiled: ok, Points: []Point{realized}}, antreav1beta1.NetworkPolicyRealized, 1, 1, metav1.ConditionTrue, metav1.ConditionFalse, "enforced on 1 of 1"},
		{"pending somewhere", Input{Compiled: ok, Points: []Point{realized, pending}}, antreav1beta1.NetworkPolicyRealizing, 1, 2, metav1.ConditionTrue, metav1.ConditionFalse, "pending on t/b (agent t/vm): AgentBehind"},
		{"failed somewhere", Input{Compiled: ok, Points: []Point{failed, realized, pending}}, antreav1beta1.NetworkPolicyFailed, 1, 3, metav1.ConditionTrue, metav1.ConditionTrue, "1 of 3 enforcement points do not enforce the policy as written: t/c (agentless): DenyNotExpressible: drop"},
		{"not realizable", Input{Compiled: bad}, antreav1beta1.NetworkPolicyFailed, 0, 0, metav1.ConditionFalse, metav1.ConditionFalse, ""},
	}
	for _, tc := range cases {
		st := Compute(tc.in, nil, now)
		if st.Phase != tc.phase || st.CurrentNodesRealized != tc.current || st.DesiredNodesRealized != tc.desired || st.ObservedGeneration != tc.in.Generation {
			t.Errorf("%s: status = %+v", tc.name, st)
			continue
		}
		if st.Conditions[0].Type != antreav1beta1.NetworkPolicyConditionRealizable || st.Conditions[0].Status != tc.realizable {
			t.Errorf("%s: Realizable = %+v", tc.name, st.Conditions[0])
		}
		if tc.failure == "" {
			continue
		}
		if c := st.Conditions[1]; c.Status != tc.failure || !strings.Contains(c.Message, tc.message) {
			t.Errorf("%s: RealizationFailure = %+v; want %s with %q", tc.name, c, tc.failure, tc.message)
		}
	}
	// A status that does not change keeps its transition times.
	first := Compute(Input{Compiled: ok, Points: []Point{failed}}, nil, now)
	later := Compute(Input{Compiled: ok, Points: []Point{failed}}, &first, metav1.NewTime(now.Add(time.Hour)))
	if !later.Conditions[1].LastTransitionTime.Equal(&now) {
		t.Errorf("transition time moved: %v", later.Conditions[1].LastTransitionTime)
	}
}
