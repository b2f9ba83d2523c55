package federatedpolicy

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federatedpolicy/translate"
)

// Reasons of the federated policy's conditions.
const (
	ReasonTranslated            = "Translated"
	ReasonNameTaken             = "NameTaken"
	ReasonDerivedObjectRejected = "DerivedObjectRejected"
	ReasonNoRuleLeft            = "NoRuleLeft"
	ReasonNotTranslated         = "NotTranslated"
	ReasonNoRemotePeers         = "NoRemotePeers"
	ReasonResolved              = "Resolved"
	ReasonAwaitingRemoteSources = "AwaitingRemoteSources"
	ReasonAccepted              = "Accepted"
	ReasonRealized              = "Realized"
	ReasonPending               = "Pending"
	ReasonEnforcementFailed     = "EnforcementFailed"
	ReasonAntreaNotInstalled    = "AntreaNotInstalled"
	ReasonNothingToEnforce      = "NothingToEnforce"
)

// maxListed bounds the items a condition's message lists.
const maxListed = 5

// outcome is what a reconcile did with a translation.
type outcome struct {
	// failure, when set, is why no derived object was written.
	failure *translate.Problem
	// derived is the derived policy as the API server holds it (nil when
	// none is needed or failure is set); groups how many Groups it uses.
	derived *antreav1beta1.NetworkPolicy
	groups  int
}

// computeStatus is the status of p after a reconcile: prev's conditions
// keep their transition time when their status does not change.
func computeStatus(p *policyv1alpha1.FederatedNetworkPolicy, rep translate.Report, out outcome, antrea bool) policyv1alpha1.FederatedNetworkPolicyStatus {
	st := policyv1alpha1.FederatedNetworkPolicyStatus{
		ObservedGeneration: p.Generation,
		RemoteSources:      rep.RemoteSources,
		RefusedPeers:       rep.RefusedPeers,
		Conditions:         append([]metav1.Condition(nil), p.Status.Conditions...),
	}
	if out.derived != nil {
		st.DerivedPolicy = out.derived.Name
	}
	set := func(t string, s metav1.ConditionStatus, reason, message string) {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: t, Status: s, Reason: reason, Message: message, ObservedGeneration: p.Generation})
	}
	set(translatedCondition(rep, out))
	if rep.Problem != nil {
		set(policyv1alpha1.ConditionRemotePeersResolved, metav1.ConditionUnknown, ReasonNotTranslated, "the policy is not translated: see the Translated condition")
		set(policyv1alpha1.ConditionPeersAccepted, metav1.ConditionUnknown, ReasonNotTranslated, "the policy is not translated: see the Translated condition")
	} else {
		set(resolvedCondition(rep))
		set(acceptedCondition(rep))
	}
	r := realize(rep, out, antrea)
	st.Phase, st.EnforcementPoints = r.phase, r.points
	set(policyv1alpha1.ConditionRealized, r.status, r.reason, r.message)
	return st
}

func translatedCondition(rep translate.Report, out outcome) (string, metav1.ConditionStatus, string, string) {
	t := policyv1alpha1.ConditionTranslated
	switch {
	case out.failure != nil:
		return t, metav1.ConditionFalse, out.failure.Reason, out.failure.Message
	case out.derived == nil:
		return t, metav1.ConditionTrue, ReasonNoRuleLeft, "every rule is left out (every peer of it is refused) and the rules set their own appliedTo: no derived policy is needed"
	}
	msg := fmt.Sprintf("NetworkPolicy %s and %s written", out.derived.Name, count(out.groups, "Group", "Groups"))
	if len(rep.Notes) > 0 {
		msg += "; " + strings.Join(rep.Notes, "; ")
	}
	return t, metav1.ConditionTrue, ReasonTranslated, msg
}

func resolvedCondition(rep translate.Report) (string, metav1.ConditionStatus, string, string) {
	t := policyv1alpha1.ConditionRemotePeersResolved
	if len(rep.RemoteSources) == 0 {
		return t, metav1.ConditionTrue, ReasonNoRemotePeers, "the policy names no remote peer"
	}
	var waiting []string
	for _, s := range rep.RemoteSources {
		if !s.Resolved {
			waiting = append(waiting, fmt.Sprintf("%s %s %q: %s", s.Rule, s.Kind, s.Name, s.Message))
		}
	}
	if len(waiting) == 0 {
		return t, metav1.ConditionTrue, ReasonResolved, fmt.Sprintf("every remote source resolved (%d)", len(rep.RemoteSources))
	}
	return t, metav1.ConditionFalse, ReasonAwaitingRemoteSources, fmt.Sprintf("waiting for %d of %d remote sources (they match nothing until then): %s",
		len(waiting), len(rep.RemoteSources), listed(waiting))
}

func acceptedCondition(rep translate.Report) (string, metav1.ConditionStatus, string, string) {
	t := policyv1alpha1.ConditionPeersAccepted
	if len(rep.RefusedPeers) == 0 {
		return t, metav1.ConditionTrue, ReasonAccepted, "every peer can be realised"
	}
	var refused []string
	for _, r := range rep.RefusedPeers {
		refused = append(refused, fmt.Sprintf("%s peer %d (%s)", r.Rule, r.Peer, r.Reason))
	}
	msg := fmt.Sprintf("%s refused, matching nothing: %s; see status.refusedPeers for why and what to use instead", count(len(refused), "peer", "peers"), listed(refused))
	if len(rep.DroppedRules) > 0 {
		msg += "; left out, as every peer of them is refused: " + listed(rep.DroppedRules)
	}
	return t, metav1.ConditionFalse, rep.RefusedPeers[0].Reason, msg
}

// listed joins items, at most maxListed of them.
func listed(items []string) string {
	if len(items) > maxListed {
		return strings.Join(items[:maxListed], "; ") + fmt.Sprintf("; and %d more", len(items)-maxListed)
	}
	return strings.Join(items, "; ")
}

// count says n of a thing: "1 Group", "3 Groups".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
