package exportscope

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// Scope is where one export may go.
type Scope struct {
	// Selector selects members by their registry labels; nil selects none
	// by label.
	Selector labels.Selector
	// ClusterIDs names members.
	ClusterIDs []string
	// Closed is a scope that reaches the exporter alone: what an export
	// whose scope cannot be read gets.
	Closed bool
}

// Everywhere is the scope of an export that says nothing: every member.
func (s Scope) Everywhere() bool {
	return !s.Closed && s.Selector == nil && len(s.ClusterIDs) == 0
}

// String is the scope as `antreaplus service list` shows it.
func (s Scope) String() string {
	switch {
	case s.Closed:
		return "none"
	case s.Everywhere():
		return "all"
	}
	var parts []string
	if s.Selector != nil {
		parts = append(parts, s.Selector.String())
	}
	if len(s.ClusterIDs) > 0 {
		parts = append(parts, strings.Join(s.ClusterIDs, ","))
	}
	return strings.Join(parts, " or ")
}

// FromAnnotations reads the scope of a ServiceExport from its annotations.
// An error says what is wrong with them; the scope returned with it is
// Closed.
func FromAnnotations(annotations map[string]string) (Scope, error) {
	var s Scope
	var errs []error
	if v, ok := annotations[federationv1alpha1.AnnotationExportToSelector]; ok {
		sel, err := ParseSelector(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("annotation %s: %w", federationv1alpha1.AnnotationExportToSelector, err))
		}
		s.Selector = sel
	}
	if v, ok := annotations[federationv1alpha1.AnnotationExportToClusters]; ok {
		ids, err := ParseClusterIDs(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("annotation %s: %w", federationv1alpha1.AnnotationExportToClusters, err))
		}
		s.ClusterIDs = ids
	}
	if err := errors.Join(errs...); err != nil {
		return Scope{Closed: true}, err
	}
	return s, nil
}

// ParseSelector reads a label selector over members in kubectl's syntax.
// An empty one is refused: it would select every member, which is what
// leaving the annotation out says.
func ParseSelector(v string) (labels.Selector, error) {
	if strings.TrimSpace(v) == "" {
		return nil, errors.New("empty selector: remove the annotation to export to every member")
	}
	sel, err := labels.Parse(v)
	if err != nil {
		return nil, fmt.Errorf("%q is not a label selector (e.g. region=eu,tier!=test): %w", v, err)
	}
	return sel, nil
}

// ParseClusterIDs reads a comma-separated list of ClusterIDs, sorted and
// without duplicates.
func ParseClusterIDs(v string) ([]string, error) {
	var ids []string
	for _, id := range strings.Split(v, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if msgs := validation.IsDNS1123Subdomain(id); len(msgs) > 0 {
			return nil, fmt.Errorf("%q is not a ClusterID: %s", id, strings.Join(msgs, "; "))
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil, errors.New("no ClusterID: remove the annotation to export to every member")
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// FromSpec reads the scope of an EntityExport. An error says what is
// wrong with it; the scope returned with it is Closed.
func FromSpec(spec *federationv1alpha1.ExportScope) (Scope, error) {
	if spec == nil {
		return Scope{}, nil
	}
	var s Scope
	if spec.ClusterSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(spec.ClusterSelector)
		if err != nil {
			return Scope{Closed: true}, fmt.Errorf("spec.scope.clusterSelector: %w", err)
		}
		if sel.Empty() {
			return Scope{Closed: true}, errors.New("spec.scope.clusterSelector is empty: remove spec.scope to export to every member")
		}
		s.Selector = sel
	}
	if len(spec.ClusterIDs) > 0 {
		ids, err := ParseClusterIDs(strings.Join(spec.ClusterIDs, ","))
		if err != nil {
			return Scope{Closed: true}, fmt.Errorf("spec.scope.clusterIDs: %w", err)
		}
		s.ClusterIDs = ids
	}
	if s.Everywhere() {
		return Scope{Closed: true}, errors.New("spec.scope names no member: remove spec.scope to export to every member")
	}
	return s, nil
}

// RefusalOf reads what a member's ClusterMembership refuses to import. A
// refusal that cannot be read refuses every other member (All), never
// less than was asked; the error says what is wrong.
func RefusalOf(spec *federationv1alpha1.ImportsSpec) (Refusal, error) {
	if spec == nil {
		return Refusal{}, nil
	}
	r := Refusal{ClusterIDs: slices.Sorted(slices.Values(spec.RefuseFrom))}
	if spec.RefuseFromSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(spec.RefuseFromSelector)
		if err != nil {
			return Refusal{All: true}, fmt.Errorf("spec.imports.refuseFromSelector: %w", err)
		}
		r.Selector = sel
	}
	return r, nil
}
