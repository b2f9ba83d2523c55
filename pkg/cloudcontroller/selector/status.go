package selector

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/binding"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/pollstatus"
)

// Condition reasons besides the API's.
const (
	// ReasonSynced: the imported objects follow the last poll of every region.
	ReasonSynced = "Synced"
	// ReasonPending: a region was not polled for this selector yet.
	ReasonPending = "Pending"
	// ReasonApplyFailed: writing the imported objects failed.
	ReasonApplyFailed = "ApplyFailed"
	// ReasonNotAccepted: the selector is not bound to its account.
	ReasonNotAccepted = "NotAccepted"
	// ReasonReady: accepted and synced.
	ReasonReady = "Ready"
)

type counts struct{ vms, nics, services int }

// observed is what a selector's status is computed from.
type observed struct {
	verdict binding.Verdict
	counts  counts
	// regions are the account's; results the last polls of its regions.
	regions []string
	results map[string]pollstatus.Result
}

// computeStatus is the selector's status, a pure function of the stored
// one and what was observed.
func computeStatus(sel *cloudv1alpha1.CloudEntitySelector, in observed) cloudv1alpha1.CloudEntitySelectorStatus {
	st := *sel.Status.DeepCopy()
	st.ObservedGeneration = sel.Generation
	st.VirtualMachines, st.NetworkInterfaces, st.CloudNativeServices = int32(in.counts.vms), int32(in.counts.nics), int32(in.counts.services)
	accepted := metav1.Condition{Type: cloudv1alpha1.SelectorConditionAccepted, Status: metav1.ConditionFalse, Reason: in.verdict.Reason, Message: in.verdict.Message}
	if in.verdict.Accepted {
		accepted.Status = metav1.ConditionTrue
	}
	synced := inventorySynced(sel, in)
	if have := meta.FindStatusCondition(st.Conditions, synced.Type); have != nil && in.verdict.Accepted && len(in.results) == 0 {
		// Just started: the last word stays until the first poll.
		synced = *have
	}
	ready := metav1.Condition{Type: cloudv1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: ReasonReady,
		Message: fmt.Sprintf("%d VMs, %d network interfaces and %d cloud-native services imported", in.counts.vms, in.counts.nics, in.counts.services)}
	for _, dep := range []metav1.Condition{accepted, synced} {
		if dep.Status != metav1.ConditionTrue {
			ready.Status, ready.Reason, ready.Message = dep.Status, dep.Reason, dep.Type+": "+dep.Message
			break
		}
	}
	for _, c := range []metav1.Condition{accepted, synced, ready} {
		c.ObservedGeneration = sel.Generation
		meta.SetStatusCondition(&st.Conditions, c)
	}
	return st
}

func inventorySynced(sel *cloudv1alpha1.CloudEntitySelector, in observed) metav1.Condition {
	c := metav1.Condition{Type: cloudv1alpha1.SelectorConditionInventorySynced}
	if !in.verdict.Accepted {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonNotAccepted, "nothing is imported for a selector that is not accepted"
		return c
	}
	var pending, failed []string
	reason := ""
	for _, region := range in.regions {
		r, ok := in.results[region]
		switch {
		case !ok || r.Selector.Name != sel.Name || r.Selector.Namespace != sel.Namespace:
			pending = append(pending, region)
		case !r.Succeeded():
			reason = firstOf(reason, r.Reason)
			failed = append(failed, fmt.Sprintf("%s: poll failed, imported objects kept as of the last successful poll: %s", region, r.Message))
		case r.ApplyError != "":
			reason = firstOf(reason, ReasonApplyFailed)
			failed = append(failed, fmt.Sprintf("%s: %s", region, r.ApplyError))
		}
	}
	sort.Strings(failed)
	switch {
	case len(failed) > 0:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, reason, strings.Join(failed, "; ")
	case len(pending) > 0:
		c.Status, c.Reason, c.Message = metav1.ConditionUnknown, ReasonPending, "not polled yet: "+strings.Join(pending, ", ")
	default:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, ReasonSynced, "the imported objects follow the last poll of every region"
	}
	return c
}

func firstOf(have, next string) string {
	if have != "" {
		return have
	}
	return next
}

func isAccepted(sel *cloudv1alpha1.CloudEntitySelector) bool {
	return meta.IsStatusConditionTrue(sel.Status.Conditions, cloudv1alpha1.SelectorConditionAccepted)
}
