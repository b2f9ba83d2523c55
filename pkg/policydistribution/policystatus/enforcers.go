package policystatus

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
)

// ConditionEnforcers names, in its message, every enforcer of the policy
// and its state, so that readers (the federated policy's status) can show
// each one: "agent shop/vm-a=Realized; agentless=Pending:AgentlessBehind".
// It is True when every enforcer enforces the policy.
const ConditionEnforcers antreav1beta1.NetworkPolicyConditionType = "Enforcers"

// Reasons of the Enforcers condition.
const (
	ReasonEnforcersRealized    = "EnforcersRealized"
	ReasonEnforcersNotRealized = "EnforcersNotRealized"
)

// maxEnforcersListed bounds the enforcers the message lists.
const maxEnforcersListed = 100

// Enforcer is who enforces a policy on some of its points (a VM agent, or
// agentless enforcement) and the state of the worst of those points.
type Enforcer struct {
	Name   string
	State  State
	Reason string
}

// Enforcers groups points by enforcer, in the order they first appear;
// each takes the state and reason of its worst point (Failed, then
// Pending).
func Enforcers(points []Point) []Enforcer {
	var out []Enforcer
	at := map[string]int{}
	for _, p := range points {
		i, ok := at[p.Enforcer]
		if !ok {
			at[p.Enforcer] = len(out)
			out = append(out, Enforcer{Name: p.Enforcer, State: p.State, Reason: p.Reason})
			continue
		}
		if severity(p.State) > severity(out[i].State) {
			out[i].State, out[i].Reason = p.State, p.Reason
		}
	}
	return out
}

func severity(s State) int {
	switch s {
	case StateFailed:
		return 2
	case StatePending:
		return 1
	}
	return 0
}

// enforcersCondition is the Enforcers condition of points.
func enforcersCondition(prev *antreav1beta1.NetworkPolicyStatus, now metav1.Time, points []Point) antreav1beta1.NetworkPolicyCondition {
	es := Enforcers(points)
	status, reason := metav1.ConditionTrue, ReasonEnforcersRealized
	for _, e := range es {
		if e.State != StateRealized {
			status, reason = metav1.ConditionFalse, ReasonEnforcersNotRealized
		}
	}
	return condition(prev, now, ConditionEnforcers, status, reason, FormatEnforcers(es))
}

// FormatEnforcers writes enforcers as the Enforcers condition's message.
func FormatEnforcers(es []Enforcer) string {
	parts := make([]string, 0, min(len(es), maxEnforcersListed+1))
	for i, e := range es {
		if i == maxEnforcersListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(es)-maxEnforcersListed))
			break
		}
		s := e.Name + "=" + string(e.State)
		if e.Reason != "" && e.Reason != string(e.State) {
			s += ":" + e.Reason
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// ParseEnforcers reads the message of an Enforcers condition back (the
// enforcers it lists; a message cut at maxEnforcersListed lists no more).
func ParseEnforcers(message string) []Enforcer {
	var out []Enforcer
	for _, part := range strings.Split(message, "; ") {
		i := strings.LastIndexByte(part, '=')
		if i <= 0 {
			continue
		}
		state, reason, _ := strings.Cut(part[i+1:], ":")
		if reason == "" {
			reason = state
		}
		out = append(out, Enforcer{Name: part[:i], State: State(state), Reason: reason})
	}
	return out
}
