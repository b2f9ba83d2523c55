package policystatus

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policycompiler"
)

func TestEnforcers(t *testing.T) {
	points := []Point{
		{Endpoint: "t/a", Enforcer: "agentless", State: StateRealized, Reason: "Realized"},
		{Endpoint: "t/b", Enforcer: "agent t/vm-1", State: StateRealized, Reason: "Realized"},
		{Endpoint: "t/c", Enforcer: "agentless", State: StatePending, Reason: ReasonAgentlessBehind},
		{Endpoint: "t/d", Enforcer: "agentless", State: StateFailed, Reason: "DenyNotExpressible"},
		{Endpoint: "t/e", Enforcer: "agentless", State: StatePending, Reason: ReasonAgentlessBehind},
	}
	want := []Enforcer{{Name: "agentless", State: StateFailed, Reason: "DenyNotExpressible"}, {Name: "agent t/vm-1", State: StateRealized, Reason: "Realized"}}
	got := Enforcers(points)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Enforcers = %+v; want %+v", got, want)
	}
	msg := FormatEnforcers(got)
	if msg != "agentless=Failed:DenyNotExpressible; agent t/vm-1=Realized" {
		t.Errorf("message %q", msg)
	}
	if back := ParseEnforcers(msg); !reflect.DeepEqual(back, want) {
		t.Errorf("ParseEnforcers = %+v; want %+v", back, want)
	}

	var many []Enforcer
	for i := range maxEnforcersListed + 5 {
		many = append(many, Enforcer{Name: fmt.Sprintf("agent t/vm-%d", i), State: StatePending, Reason: ReasonAgentBehind})
	}
	msg = FormatEnforcers(many)
	if !strings.HasSuffix(msg, "; and 5 more") || len(ParseEnforcers(msg)) != maxEnforcersListed {
		t.Errorf("long message: %d parsed, ends %q", len(ParseEnforcers(msg)), msg[len(msg)-20:])
	}
}

func TestComputeEnforcersCondition(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	ok := &policycompiler.PolicyStatus{Realized: true}
	for _, tc := range []struct {
		points  []Point
		status  metav1.ConditionStatus
		message string
	}{
		{nil, metav1.ConditionTrue, ""},
		{[]Point{{Endpoint: "t/a", Enforcer: "agentless", State: StateRealized, Reason: "Realized"}}, metav1.ConditionTrue, "agentless=Realized"},
		{[]Point{{Endpoint: "t/a", Enforcer: "agent t/vm", State: StatePending, Reason: ReasonAgentBehind}}, metav1.ConditionFalse, "agent t/vm=Pending:AgentBehind"},
	} {
		st := Compute(Input{Compiled: ok, Points: tc.points}, nil, now)
		c := st.Conditions[len(st.Conditions)-1]
		if c.Type != ConditionEnforcers || c.Status != tc.status || c.Message != tc.message {
			t.Errorf("points %+v: condition %+v; want %s %q", tc.points, c, tc.status, tc.message)
		}
	}
	if st := Compute(Input{}, nil, now); len(st.Conditions) != 1 || st.Conditions[0].Type != antreav1beta1.NetworkPolicyConditionRealizable {
		t.Errorf("a policy not compiled yet has conditions %+v", st.Conditions)
	}
}
