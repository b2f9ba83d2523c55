package policycompiler

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// entityKind tells Pods from ExternalEntities: a selector selects one kind.
type entityKind uint8

const (
	podKind entityKind = iota
	externalEntityKind
	kindCount
)

// scopeKind is how a selector limits the Namespaces it selects in.
type scopeKind uint8

const (
	// scopeNamespace selects in one Namespace.
	scopeNamespace scopeKind = iota
	// scopeNamespaceSelector selects in the Namespaces a selector selects.
	scopeNamespaceSelector
	// scopeAll selects in every Namespace.
	scopeAll
)

// serviceAccountLabel is the label the compiler gives each Pod for its
// ServiceAccount, so that serviceAccount peers are label selectors, as in
// Antrea.
const serviceAccountLabel = "internal.antrea.io/service-account"

// selectorSpec selects workloads of one kind by label, within a scope.
type selectorSpec struct {
	kind       entityKind
	scope      scopeKind
	namespace  string
	nsSelector labels.Selector
	selector   labels.Selector
}

// key returns a string equal for selectors that select the same workloads
// as written, so that policies share them.
func (s selectorSpec) key() string {
	var b strings.Builder
	b.WriteByte('0' + byte(s.kind))
	switch s.scope {
	case scopeNamespace:
		b.WriteString("|ns=")
		b.WriteString(s.namespace)
	case scopeNamespaceSelector:
		b.WriteString("|nssel=")
		b.WriteString(s.nsSelector.String())
	default:
		b.WriteString("|all")
	}
	b.WriteString("|sel=")
	b.WriteString(s.selector.String())
	return b.String()
}

// scopeNamespaceKey is the Namespace a selector is filed under in the
// index: its own Namespace, or "" for selectors that span Namespaces.
func (s selectorSpec) scopeNamespaceKey() string {
	if s.scope == scopeNamespace {
		return s.namespace
	}
	return ""
}

// newSelectorSpec builds the selector of label selectors as Antrea reads
// them: externalEntitySelector selects ExternalEntities, otherwise Pods are
// selected (podSelector, or every Pod when only namespaceSelector is set);
// namespaceSelector picks the Namespaces, otherwise defaultNamespace does
// ("" for every Namespace).
func newSelectorSpec(defaultNamespace string, podSel, nsSel, eeSel *metav1.LabelSelector) (selectorSpec, error) {
	spec := selectorSpec{kind: podKind, scope: scopeAll}
	entitySel := podSel
	if eeSel != nil {
		spec.kind, entitySel = externalEntityKind, eeSel
	}
	var err error
	if spec.selector, err = asSelector(entitySel); err != nil {
		return selectorSpec{}, err
	}
	switch {
	case nsSel != nil:
		spec.scope = scopeNamespaceSelector
		if spec.nsSelector, err = asSelector(nsSel); err != nil {
			return selectorSpec{}, err
		}
	case defaultNamespace != "":
		spec.scope, spec.namespace = scopeNamespace, defaultNamespace
	}
	return spec, nil
}

// asSelector converts a label selector; nil selects everything.
func asSelector(sel *metav1.LabelSelector) (labels.Selector, error) {
	if sel == nil {
		return labels.Everything(), nil
	}
	return metav1.LabelSelectorAsSelector(sel)
}

// equalityKey returns "key=value" for the first requirement of sel that
// needs a label to have one value, or "" when there is none. Selectors are
// filed under it so that a label set is only matched against selectors that
// can select it.
func equalityKey(sel labels.Selector) string {
	requirements, _ := sel.Requirements()
	for _, r := range requirements {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			if values := r.ValuesUnsorted(); len(values) == 1 {
				return r.Key() + "=" + values[0]
			}
		}
	}
	return ""
}
