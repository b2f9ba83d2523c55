package serviceexport

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

// Validity is the verdict on an export: whether its Service can be exported.
type Validity struct {
	Valid   bool
	Reason  mcsv1beta1.ServiceExportConditionReason
	Message string
}

// Validate judges an export by its Service (nil when there is none), as the
// KEP's Valid condition does.
func Validate(svc *corev1.Service) Validity {
	switch {
	case svc == nil:
		return Validity{Reason: mcsv1beta1.ServiceExportReasonNoService,
			Message: "no Service of the same name and namespace: create it, or delete the ServiceExport"}
	case svc.Spec.Type == corev1.ServiceTypeExternalName:
		return Validity{Reason: mcsv1beta1.ServiceExportReasonInvalidServiceType,
			Message: "an ExternalName Service cannot be exported: export a ClusterIP, NodePort or LoadBalancer Service instead"}
	case !svc.DeletionTimestamp.IsZero():
		return Validity{Reason: mcsv1beta1.ServiceExportReasonNoService, Message: "the Service is being deleted"}
	}
	return Validity{Valid: true, Reason: mcsv1beta1.ServiceExportReasonValid,
		Message: fmt.Sprintf("Service of type %s is exported", serviceType(svc))}
}

// ValidCondition is the export's Valid condition.
func ValidCondition(v Validity, generation int64) metav1.Condition {
	return condition(mcsv1beta1.ServiceExportConditionValid, v.Valid, v.Reason, v.Message, generation)
}

// ReadyCondition is the export's Ready condition as the exporting member
// judges it (pull model: ready to be pulled by the federation). It says
// which addresses the export offers, or what is missing.
func ReadyCondition(v Validity, a Addresses, generation int64) metav1.Condition {
	ready := mcsv1beta1.ServiceExportConditionReady
	switch {
	case !v.Valid:
		return condition(ready, false, mcsv1beta1.ServiceExportReasonFailed, "the export is not valid: "+v.Message, generation)
	case a.Type == AddressNone:
		return condition(ready, false, mcsv1beta1.ServiceExportReasonFailed, a.Note, generation)
	case readyEndpoints(a.Endpoints) == 0:
		return condition(ready, false, mcsv1beta1.ServiceExportReasonPending, a.Note, generation)
	}
	return condition(ready, true, mcsv1beta1.ServiceExportReasonReady, a.Note, generation)
}

// NoConflictCondition is the Conflict condition of an export without conflicts.
func NoConflictCondition(generation int64) metav1.Condition {
	return condition(mcsv1beta1.ServiceExportConditionConflict, false, mcsv1beta1.ServiceExportReasonNoConflicts,
		"no conflict with the exports of other clusters", generation)
}

func condition(t mcsv1beta1.ServiceExportConditionType, ok bool, reason mcsv1beta1.ServiceExportConditionReason, msg string, generation int64) metav1.Condition {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	if len(msg) > 32768 {
		msg = msg[:32765] + "..."
	}
	return metav1.Condition{Type: string(t), Status: status, Reason: string(reason), Message: msg, ObservedGeneration: generation}
}

func serviceType(svc *corev1.Service) string {
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return "ClusterIP (headless)"
	}
	if svc.Spec.Type == "" {
		return string(corev1.ServiceTypeClusterIP)
	}
	return string(svc.Spec.Type)
}

func readyEndpoints(eps []Endpoint) int {
	n := 0
	for _, e := range eps {
		if e.Ready {
			n++
		}
	}
	return n
}
