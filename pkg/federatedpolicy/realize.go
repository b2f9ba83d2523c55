package federatedpolicy

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federatedpolicy/translate"
	"antreaplus.io/antreaplus/pkg/policydistribution/policystatus"
)

// AntreaPoint is the enforcement point of a stock Antrea enforcing the
// derived policy for the member's Pods.
const AntreaPoint = "antrea"

// realization is where the derived policy is enforced, summed up.
type realization struct {
	phase   policyv1alpha1.FederatedPolicyPhase
	points  []policyv1alpha1.EnforcementPointStatus
	status  metav1.ConditionStatus
	reason  string
	message string
}

// realize derives the phase, the enforcement points and the Realized
// condition from the derived policy's status (see the package doc).
func realize(rep translate.Report, out outcome, antrea bool) realization {
	switch {
	case out.failure != nil:
		return realization{phase: policyv1alpha1.FederatedPolicyFailed, status: metav1.ConditionFalse, reason: ReasonNotTranslated,
			message: "nothing is enforced from this policy: see the Translated condition"}
	case out.derived == nil:
		return realization{phase: policyv1alpha1.FederatedPolicyRealized, status: metav1.ConditionTrue, reason: ReasonNothingToEnforce,
			message: "no rule is left to enforce"}
	}
	d := out.derived
	observed := d.Status.Phase != "" && d.Status.ObservedGeneration == d.Generation
	var r realization
	if observed {
		r.points = vmPoints(&d.Status)
	}
	if rep.AppliesToPods {
		r.points = append(r.points, antreaPoint(d, observed, antrea))
	}
	sort.Slice(r.points, func(a, b int) bool { return r.points[a].Name < r.points[b].Name })
	podsOnly := rep.AppliesToPods && !rep.AppliesToExternalEntities
	switch {
	case podsOnly && !antrea:
		r.phase, r.status, r.reason = policyv1alpha1.FederatedPolicyFailed, metav1.ConditionFalse, ReasonAntreaNotInstalled
		r.message = "the policy applies to Pods only and Antrea is not installed in this member: nothing enforces it"
	case !observed:
		r.phase, r.status, r.reason = policyv1alpha1.FederatedPolicyPending, metav1.ConditionFalse, ReasonPending
		r.message = fmt.Sprintf("no enforcement status for generation %d of NetworkPolicy %s yet", d.Generation, d.Name)
	case d.Status.Phase == antreav1beta1.NetworkPolicyFailed:
		r.phase, r.status, r.reason = policyv1alpha1.FederatedPolicyFailed, metav1.ConditionFalse, ReasonEnforcementFailed
		r.message = failureMessage(d)
	case d.Status.Phase == antreav1beta1.NetworkPolicyRealized:
		r.phase, r.status, r.reason = policyv1alpha1.FederatedPolicyRealized, metav1.ConditionTrue, ReasonRealized
		r.message = fmt.Sprintf("enforced on %d of %d enforcement points of NetworkPolicy %s", d.Status.CurrentNodesRealized, d.Status.DesiredNodesRealized, d.Name)
		if rep.AppliesToPods && !antrea {
			r.message += "; its Pods are not protected: Antrea is not installed in this member"
		}
	default:
		r.phase, r.status, r.reason = policyv1alpha1.FederatedPolicyPending, metav1.ConditionFalse, ReasonPending
		r.message = fmt.Sprintf("enforced on %d of %d enforcement points of NetworkPolicy %s so far", d.Status.CurrentNodesRealized, d.Status.DesiredNodesRealized, d.Name)
	}
	return r
}

// vmPoints are the enforcers the policy controller lists in the derived
// policy's Enforcers condition.
func vmPoints(st *antreav1beta1.NetworkPolicyStatus) []policyv1alpha1.EnforcementPointStatus {
	var out []policyv1alpha1.EnforcementPointStatus
	for _, c := range st.Conditions {
		if c.Type != policystatus.ConditionEnforcers {
			continue
		}
		for _, e := range policystatus.ParseEnforcers(c.Message) {
			p := policyv1alpha1.EnforcementPointStatus{Name: e.Name, Realized: e.State == policystatus.StateRealized}
			switch {
			case !p.Realized:
				p.Reason = e.Reason
			case e.Reason == policystatus.ReasonAgentlessApproximated:
				p.Reason = e.Reason
				p.Message = "enforced approximately: see the RealizationFailure condition of the derived policy"
			}
			out = append(out, p)
		}
	}
	return out
}

// antreaPoint is the state of a stock Antrea enforcing the derived policy
// for Pods. Antrea reports into the derived policy's status; without
// Antrea nothing enforces it for Pods.
func antreaPoint(d *antreav1beta1.NetworkPolicy, observed, antrea bool) policyv1alpha1.EnforcementPointStatus {
	p := policyv1alpha1.EnforcementPointStatus{Name: AntreaPoint}
	switch {
	case !antrea:
		p.Reason = ReasonAntreaNotInstalled
		p.Message = "Antrea is not installed in this member (no APIService v1beta2.controlplane.antrea.io): nothing enforces this policy for Pods"
	case observed && d.Status.Phase == antreav1beta1.NetworkPolicyRealized:
		p.Realized = true
	default:
		p.Reason = ReasonPending
		p.Message = fmt.Sprintf("NetworkPolicy %s is %q at generation %d (policy generation %d)", d.Name, d.Status.Phase, d.Status.ObservedGeneration, d.Generation)
	}
	return p
}

func failureMessage(d *antreav1beta1.NetworkPolicy) string {
	conds := make([]metav1.Condition, 0, len(d.Status.Conditions))
	for _, c := range d.Status.Conditions {
		conds = append(conds, metav1.Condition{Type: string(c.Type), Status: c.Status, Message: c.Message})
	}
	for _, t := range []antreav1beta1.NetworkPolicyConditionType{antreav1beta1.NetworkPolicyConditionRealizationFailure, antreav1beta1.NetworkPolicyConditionRealizable} {
		if c := meta.FindStatusCondition(conds, string(t)); c != nil && c.Status == failing(t) {
			return fmt.Sprintf("NetworkPolicy %s: %s: %s", d.Name, t, c.Message)
		}
	}
	return fmt.Sprintf("NetworkPolicy %s failed", d.Name)
}

// failing is the status of a condition type that says a policy failed.
func failing(t antreav1beta1.NetworkPolicyConditionType) metav1.ConditionStatus {
	if t == antreav1beta1.NetworkPolicyConditionRealizable {
		return metav1.ConditionFalse
	}
	return metav1.ConditionTrue
}
