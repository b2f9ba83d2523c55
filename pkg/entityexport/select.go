package entityexport

import (
	"sort"

	"k8s.io/apimachinery/pkg/labels"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// Selected returns the ExternalEntities that exp selects among entities:
// those of its Namespace, not being deleted, that its selector matches.
// An invalid or deleted export selects nothing.
func Selected(exp *federationv1alpha1.EntityExport, entities []antreav1alpha2.ExternalEntity) []antreav1alpha2.ExternalEntity {
	v := Validate(exp)
	if !v.Valid || !exp.DeletionTimestamp.IsZero() {
		return nil
	}
	var out []antreav1alpha2.ExternalEntity
	for _, e := range entities {
		if selects(exp.Namespace, v.selector, &e) {
			out = append(out, e)
		}
	}
	return out
}

func selects(ns string, sel labels.Selector, e *antreav1alpha2.ExternalEntity) bool {
	return e.Namespace == ns && e.DeletionTimestamp.IsZero() && sel.Matches(labels.Set(e.Labels))
}

// Exported returns the ExternalEntities selected by at least one of the
// exports, each once, sorted by Namespace and name. Each export selects in
// its own Namespace only; a Namespace may have several exports.
func Exported(exports []federationv1alpha1.EntityExport, entities []antreav1alpha2.ExternalEntity) []antreav1alpha2.ExternalEntity {
	seen := map[[2]string]bool{}
	var out []antreav1alpha2.ExternalEntity
	for i := range exports {
		for _, e := range Selected(&exports[i], entities) {
			k := [2]string{e.Namespace, e.Name}
			if !seen[k] {
				seen[k] = true
				out = append(out, e)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}
