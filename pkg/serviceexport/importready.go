package serviceexport

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

// ImportReadyCondition is the Ready condition of a ServiceImport: True
// when a headless import is written, or when a ClusterSetIP import has a
// cluster-set IP of every family the exporters serve; False/Pending while
// it has no IP; False/IPFamilyNotSupported when the member cannot give an
// IP of a family the exporters serve (its Service ranges lack it), saying
// which clients are left out and what to change.
func ImportReadyCondition(r Result, cs ClusterSetIP) metav1.Condition {
	if r.Type == mcsv1beta1.Headless {
		return importCondition(true, mcsv1beta1.ServiceImportReasonReady,
			fmt.Sprintf("headless: DNS answers the endpoint addresses (%s) of %s", familyWords(r.IPFamilies), strings.Join(r.Clusters(), ", ")))
	}
	if cs.Refused != "" {
		return importCondition(false, mcsv1beta1.ServiceImportReasonIPFamilyNotSupported,
			fmt.Sprintf("this member refused a cluster-set IP of the families the exporters serve (%s): %s; give the member's Service CIDRs a range of each family",
				familyWords(r.IPFamilies), cs.Refused))
	}
	if len(cs.IPs) == 0 {
		return importCondition(false, mcsv1beta1.ServiceImportReasonPending,
			"waiting for the cluster-set IP: the derived Service has no ClusterIP yet (or its name is taken by a Service the federation does not manage)")
	}
	have := familiesOfIPs(cs.IPs)
	var missing []corev1.IPFamily
	for _, f := range r.IPFamilies {
		if !slices.Contains(have, f) {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return importCondition(false, mcsv1beta1.ServiceImportReasonIPFamilyNotSupported,
			fmt.Sprintf("the exporters serve %s but this member gave cluster-set IPs of %s only (%s): %s clients cannot use them; give the member's Service CIDRs a range of %s",
				familyWords(r.IPFamilies), familyWords(have), strings.Join(cs.IPs, ", "), familyWords(missing), familyWords(missing)))
	}
	return importCondition(true, mcsv1beta1.ServiceImportReasonReady,
		fmt.Sprintf("cluster-set IP %s (%s) for the endpoints of %s", strings.Join(cs.IPs, ", "), familyWords(have), strings.Join(r.Clusters(), ", ")))
}

func importCondition(ok bool, reason mcsv1beta1.ServiceImportConditionReason, msg string) metav1.Condition {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	return metav1.Condition{Type: string(mcsv1beta1.ServiceImportConditionReady), Status: status, Reason: string(reason), Message: msg}
}
