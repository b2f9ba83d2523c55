package entityexport

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/exportscope"
)

// Reasons of the Valid condition.
const (
	// ReasonValid: the selector parses; what it selects is exported.
	ReasonValid = "Valid"
	// ReasonInvalidSelector: the selector does not parse; nothing is exported.
	ReasonInvalidSelector = "InvalidSelector"
)

// Validity is the verdict on an export.
type Validity struct {
	Valid   bool
	Reason  string
	Message string
	// selector is the parsed selector of a valid export.
	selector labels.Selector
}

// Validate judges an export: its selector must parse, and its scope when
// it has one.
func Validate(exp *federationv1alpha1.EntityExport) Validity {
	sel, err := metav1.LabelSelectorAsSelector(&exp.Spec.ExternalEntitySelector)
	if err != nil {
		return Validity{Reason: ReasonInvalidSelector, Message: fmt.Sprintf(
			"spec.externalEntitySelector is invalid (%v): nothing is exported until it is fixed; "+
				"select ExternalEntities by their labels, for example matchLabels: {tag.cloud.antreaplus.io/role: web}, "+
				"or matchExpressions with operator In, NotIn, Exists or DoesNotExist", err)}
	}
	if _, err := exportscope.FromSpec(exp.Spec.Scope); err != nil {
		return Validity{Reason: federationv1alpha1.ReasonInvalidScope, Message: fmt.Sprintf(
			"%s: nothing is exported until it is fixed; select members by their registry labels "+
				"(clusterSelector: {matchLabels: {region: eu}}) and/or name them (clusterIDs: [member-2])", err)}
	}
	return Validity{Valid: true, Reason: ReasonValid, selector: sel}
}

// ValidCondition is the Valid condition of exp, judged v, which selects
// selected ExternalEntities.
func ValidCondition(exp *federationv1alpha1.EntityExport, v Validity, selected int) metav1.Condition {
	c := metav1.Condition{Type: federationv1alpha1.EntityExportConditionValid, Status: metav1.ConditionFalse,
		Reason: v.Reason, Message: v.Message, ObservedGeneration: exp.Generation}
	if !v.Valid {
		return c
	}
	c.Status = metav1.ConditionTrue
	switch selected {
	case 0:
		c.Message = "the selector is valid but selects no ExternalEntity of this Namespace yet: " +
			"compare it with the entities' labels (kubectl get externalentities -n " + exp.Namespace + " --show-labels)"
	default:
		c.Message = "the selector is valid: the ExternalEntities it selects are exported to the other members in its scope (see status.exportedEntities)"
	}
	return c
}
