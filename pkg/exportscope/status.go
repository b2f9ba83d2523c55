package exportscope

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// maxNamed is how many members a condition's message names in each list;
// the rest are counted.
const maxNamed = 10

// Condition is the Exported condition of an export: where it went. True
// when it reaches every member in its scope (Everywhere with no scope set,
// Scoped with one); False when its scope cannot be read (InvalidScope: it
// reaches its exporter alone), when members in its scope refuse it
// (Refused) or when its scope names ClusterIDs that are not members
// (UnknownClusters). reach is ReachOf over the registry, unknown Unknown.
func Condition(s Scope, scopeErr error, reach []Reach, unknown []string, generation int64) metav1.Condition {
	c := metav1.Condition{Type: federationv1alpha1.ConditionExported, ObservedGeneration: generation, Status: metav1.ConditionTrue}
	var reached, refused, outside []string
	for _, r := range reach {
		switch {
		case r.Reached:
			reached = append(reached, r.ClusterID)
		case r.Reason == Refused:
			refused = append(refused, r.ClusterID)
		default:
			outside = append(outside, r.ClusterID)
		}
	}
	where := fmt.Sprintf(reachedFormat+": %s (scope %s)", len(reached), len(reach), names(reached), s)
	switch {
	case scopeErr != nil:
		c.Status, c.Reason = metav1.ConditionFalse, federationv1alpha1.ReasonInvalidScope
		c.Message = fmt.Sprintf("%s; exported to its own member only until it is fixed", scopeErr)
		return c
	case len(refused) > 0:
		c.Status, c.Reason = metav1.ConditionFalse, federationv1alpha1.ReasonScopeRefused
		c.Message = fmt.Sprintf("%s; refused by %s (their ClusterMembership spec.imports)", where, names(refused))
	case len(unknown) > 0:
		c.Status, c.Reason = metav1.ConditionFalse, federationv1alpha1.ReasonUnknownClusters
		c.Message = fmt.Sprintf("%s; not members of the federation: %s (reached once they join)", where, names(unknown))
	case s.Everywhere():
		c.Reason, c.Message = federationv1alpha1.ReasonEverywhere, where
	default:
		c.Reason, c.Message = federationv1alpha1.ReasonScoped, where
	}
	if len(outside) > 0 {
		c.Message += fmt.Sprintf("; not in scope: %s", names(outside))
	}
	return c
}

// Describes tells whether an Exported condition was written for scope s
// (what FromAnnotations or FromSpec read now, with its error): a scope
// change does not change an export's generation, so a reader waiting for
// the new verdict compares the scope it names.
func Describes(c metav1.Condition, s Scope, scopeErr error) bool {
	if scopeErr != nil {
		return c.Reason == federationv1alpha1.ReasonInvalidScope
	}
	return c.Reason != federationv1alpha1.ReasonInvalidScope && strings.Contains(c.Message, "(scope "+s.String()+")")
}

// reachedFormat opens every Exported message but InvalidScope's.
const reachedFormat = "exported to %d of %d members"

// ReachedOf reads back from an Exported condition's message how many
// members the export reaches, of how many; false when it does not say.
func ReachedOf(message string) (reached, of int, ok bool) {
	if _, err := fmt.Sscanf(message, reachedFormat, &reached, &of); err != nil {
		return 0, 0, false
	}
	return reached, of, true
}

// names lists ids, the first maxNamed by name and the rest counted.
func names(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	if len(ids) <= maxNamed {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:maxNamed], ", "), len(ids)-maxNamed)
}
