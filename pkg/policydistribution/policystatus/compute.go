package policystatus

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policycompiler"
)

// maxListed bounds the points a condition's message lists.
const maxListed = 10

// Reasons of the conditions.
const (
	ReasonCompiled           = "Compiled"
	ReasonNotCompiled        = "NotCompiledYet"
	ReasonEnforcedEverywhere = "NoFailure"
	ReasonPointsFailed       = "EnforcementPointsFailed"
)

// Input is what the status of one policy is computed from.
type Input struct {
	// Compiled is the compiler's status of the policy and Generation the
	// policy generation it compiled; nil when it does not hold the policy
	// yet.
	Compiled   *policycompiler.PolicyStatus
	Generation int64
	// Points are the policy's enforcement points.
	Points []Point
}

// Compute returns the status of a policy. prev is its current status:
// conditions whose status does not change keep their transition time.
func Compute(in Input, prev *antreav1beta1.NetworkPolicyStatus, now metav1.Time) antreav1beta1.NetworkPolicyStatus {
	if in.Compiled == nil {
		return antreav1beta1.NetworkPolicyStatus{Phase: antreav1beta1.NetworkPolicyPending,
			Conditions: []antreav1beta1.NetworkPolicyCondition{condition(prev, now, antreav1beta1.NetworkPolicyConditionRealizable,
				metav1.ConditionUnknown, ReasonNotCompiled, "the policy controller has not compiled this policy yet")}}
	}
	points := slices.Clone(in.Points)
	slices.SortFunc(points, func(a, b Point) int { return cmp.Compare(a.Endpoint, b.Endpoint) })
	st := antreav1beta1.NetworkPolicyStatus{ObservedGeneration: in.Generation, DesiredNodesRealized: int32(len(points))}
	var failed, pending, notes []Point
	for _, p := range points {
		switch p.State {
		case StateRealized:
			st.CurrentNodesRealized++
			if p.Message != "" {
				notes = append(notes, p)
			}
		case StateFailed:
			failed = append(failed, p)
		default:
			pending = append(pending, p)
		}
	}
	realizable := condition(prev, now, antreav1beta1.NetworkPolicyConditionRealizable, metav1.ConditionTrue, ReasonCompiled, issues(in.Compiled.Issues))
	if !in.Compiled.Realized {
		reason := ReasonNotCompiled
		if i := slices.IndexFunc(in.Compiled.Issues, func(i policycompiler.Issue) bool { return i.Severity == policycompiler.SeverityError }); i >= 0 {
			reason = in.Compiled.Issues[i].Reason
		}
		realizable = condition(prev, now, antreav1beta1.NetworkPolicyConditionRealizable, metav1.ConditionFalse, reason, issues(in.Compiled.Issues))
	}
	failure := condition(prev, now, antreav1beta1.NetworkPolicyConditionRealizationFailure, metav1.ConditionFalse, ReasonEnforcedEverywhere,
		summary(len(points), int(st.CurrentNodesRealized), pending, notes))
	if len(failed) > 0 {
		failure = condition(prev, now, antreav1beta1.NetworkPolicyConditionRealizationFailure, metav1.ConditionTrue, ReasonPointsFailed,
			fmt.Sprintf("%d of %d enforcement points do not enforce the policy as written: %s", len(failed), len(points), list(failed)))
	}
	st.Conditions = []antreav1beta1.NetworkPolicyCondition{realizable, failure, enforcersCondition(prev, now, points)}
	switch {
	case !in.Compiled.Realized || len(failed) > 0:
		st.Phase = antreav1beta1.NetworkPolicyFailed
	case len(pending) > 0:
		st.Phase = antreav1beta1.NetworkPolicyRealizing
	default:
		st.Phase = antreav1beta1.NetworkPolicyRealized
	}
	return st
}

// summary says, for a policy without failures, where it is enforced.
func summary(total, realized int, pending, notes []Point) string {
	s := fmt.Sprintf("enforced on %d of %d enforcement points", realized, total)
	if len(pending) > 0 {
		s += "; pending on " + list(pending)
	}
	if len(notes) > 0 {
		s += "; with differences on " + list(notes)
	}
	return s
}

// list writes points, at most maxListed of them.
func list(points []Point) string {
	var parts []string
	for i, p := range points {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(points)-maxListed))
			break
		}
		parts = append(parts, p.String())
	}
	return strings.Join(parts, " | ")
}

func issues(list []policycompiler.Issue) string {
	if len(list) == 0 {
		return "the policy compiled without issues"
	}
	parts := make([]string, 0, len(list))
	for _, i := range list {
		parts = append(parts, i.String())
	}
	return strings.Join(parts, "; ")
}

// condition returns a condition, keeping prev's transition time when its
// status is the same.
func condition(prev *antreav1beta1.NetworkPolicyStatus, now metav1.Time, t antreav1beta1.NetworkPolicyConditionType,
	status metav1.ConditionStatus, reason, message string) antreav1beta1.NetworkPolicyCondition {
	c := antreav1beta1.NetworkPolicyCondition{Type: t, Status: status, LastTransitionTime: now, Reason: reason, Message: message}
	if prev != nil {
		for _, p := range prev.Conditions {
			if p.Type == t && p.Status == status {
				c.LastTransitionTime = p.LastTransitionTime
			}
		}
	}
	return c
}
