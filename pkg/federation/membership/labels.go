package membership

import (
	"fmt"
	"maps"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"antreaplus.io/antreaplus/internal/names"
)

// managedLabels are the labels of every object the federation creates:
// extra plus the managed-by label.
func managedLabels(extra map[string]string) map[string]string {
	l := maps.Clone(extra)
	if l == nil {
		l = map[string]string{}
	}
	l[names.ManagedByLabel] = names.ManagedBy
	return l
}

// validateMemberLabels checks the labels a member is registered with.
func validateMemberLabels(labels map[string]string) error {
	if _, ok := labels[names.ManagedByLabel]; ok {
		return fmt.Errorf("the label %s is reserved for AntreaPlus: choose another key", names.ManagedByLabel)
	}
	if errs := metav1validation.ValidateLabels(labels, field.NewPath("labels")); len(errs) > 0 {
		return fmt.Errorf("invalid member labels: %w", errs.ToAggregate())
	}
	return nil
}
