package membership

import (
	"fmt"
	"maps"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// managedLabels are the labels of every object the federation creates:
// extra plus the managed-by label.
func managedLabels(extra map[string]string) map[string]string {
	l := maps.Clone(extra)
	if l == nil {
		l = map[string]string{}
	}
	l[federationv1alpha1.LabelManagedBy] = federationv1alpha1.ManagedByFederation
	return l
}

// validateMemberLabels checks the labels a member is registered with.
func validateMemberLabels(labels map[string]string) error {
	if _, ok := labels[federationv1alpha1.LabelManagedBy]; ok {
		return fmt.Errorf("the label %s is reserved for AntreaPlus: choose another key", federationv1alpha1.LabelManagedBy)
	}
	if errs := metav1validation.ValidateLabels(labels, field.NewPath("labels")); len(errs) > 0 {
		return fmt.Errorf("invalid member labels: %w", errs.ToAggregate())
	}
	return nil
}
