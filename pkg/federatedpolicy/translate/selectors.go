package translate

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"antreaplus.io/antreaplus/pkg/entityexport"
)

// splitFederationRequirements splits a selector into its requirements on
// federation labels (those an exporting member cannot set,
// entityexport.Spoofable; as a Selector) and the rest (as a LabelSelector,
// empty rather than nil when nothing is left, so that it still selects
// every entity). sel must parse.
func splitFederationRequirements(sel *metav1.LabelSelector) (labels.Selector, *metav1.LabelSelector) {
	fed := &metav1.LabelSelector{}
	rest := &metav1.LabelSelector{}
	for k, v := range sel.MatchLabels {
		if entityexport.Spoofable(k) {
			setLabel(&fed.MatchLabels, k, v)
		} else {
			setLabel(&rest.MatchLabels, k, v)
		}
	}
	for _, e := range sel.MatchExpressions {
		if entityexport.Spoofable(e.Key) {
			fed.MatchExpressions = append(fed.MatchExpressions, *e.DeepCopy())
		} else {
			rest.MatchExpressions = append(rest.MatchExpressions, *e.DeepCopy())
		}
	}
	s, err := metav1.LabelSelectorAsSelector(fed)
	if err != nil {
		return labels.Nothing(), rest
	}
	return s, rest
}

func setLabel(m *map[string]string, k, v string) {
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[k] = v
}

// parseSelector parses a selector of peer j of rule id; a nil selector
// selects nothing.
func parseSelector(sel *metav1.LabelSelector, id string, j int, field string) (labels.Selector, *Problem) {
	if sel == nil {
		return labels.Nothing(), nil
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil, &Problem{Reason: ReasonInvalidPolicy, Message: fmt.Sprintf("%s peer %d: invalid %s: %v", id, j, field, err)}
	}
	return s, nil
}

// describe writes a selector for humans: "all" when it selects everything.
func describe(sel *metav1.LabelSelector) string {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return "<invalid>"
	}
	if s.Empty() {
		return "all"
	}
	return s.String()
}
