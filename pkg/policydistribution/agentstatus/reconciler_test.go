package agentstatus

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

func TestSetStatus(t *testing.T) {
	report := &wire.Report{AgentVersion: "v1", Interfaces: []string{"eth0"}, AppliedEpoch: "e", AppliedGeneration: 7, AppliedRules: 3}
	failed := *report
	failed.ApplyError = "netlink: EPERM"
	cases := []struct {
		name                string
		agent               policydistribution.AgentStatus
		known               bool
		connected, realized metav1.ConditionStatus
		reason              string
		withAgent           bool
	}{
		{"never connected", policydistribution.AgentStatus{}, false, metav1.ConditionFalse, metav1.ConditionFalse, ReasonAgentNotPresent, false},
		{"connected, not reported", policydistribution.AgentStatus{Connected: true}, true, metav1.ConditionTrue, metav1.ConditionFalse, ReasonAgentNotPresent, false},
		{"realized", policydistribution.AgentStatus{Connected: true, Report: report}, true, metav1.ConditionTrue, metav1.ConditionTrue, ReasonRealized, true},
		{"behind", policydistribution.AgentStatus{Connected: true, Report: report, Behind: true, ScopeGeneration: 9}, true,
			metav1.ConditionTrue, metav1.ConditionFalse, ReasonPending, true},
		{"apply failed", policydistribution.AgentStatus{Connected: true, Report: &failed, Behind: true}, true,
			metav1.ConditionTrue, metav1.ConditionFalse, ReasonApplyFailed, true},
		{"disconnected", policydistribution.AgentStatus{Report: report}, true, metav1.ConditionFalse, metav1.ConditionTrue, ReasonRealized, true},
	}
	for _, c := range cases {
		st := &cloudv1alpha1.VirtualMachineStatus{}
		setStatus(st, 3, c.agent, c.known, time.Unix(0, 0))
		conn := meta.FindStatusCondition(st.Conditions, cloudv1alpha1.VMConditionAgentConnected)
		real := meta.FindStatusCondition(st.Conditions, cloudv1alpha1.ConditionPolicyRealized)
		if conn.Status != c.connected || real.Status != c.realized || real.Reason != c.reason || (st.Agent != nil) != c.withAgent {
			t.Errorf("%s: AgentConnected %s, PolicyRealized %s/%s, agent %+v", c.name, conn.Status, real.Status, real.Reason, st.Agent)
		}
		if c.withAgent && (st.Agent.AppliedPolicyGeneration != 7 || st.Agent.Version != "v1" || st.Agent.Interfaces[0] != "eth0") {
			t.Errorf("%s: status.agent = %+v", c.name, st.Agent)
		}
	}
}
