package serviceexport

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// reservedPrefixes are the key prefixes of the labels and annotations the
// federation writes itself: an export cannot set them on the import.
var reservedPrefixes = []string{"federation.antreaplus.io/", "multicluster.kubernetes.io/"}

// Reserved tells whether a label or annotation key is the federation's own
// bookkeeping (federation.antreaplus.io/*, multicluster.kubernetes.io/*,
// app.kubernetes.io/managed-by), never taken from an export.
func Reserved(key string) bool {
	if key == federationv1alpha1.LabelManagedBy {
		return true
	}
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// ExportedMetadata is what an export's spec.exportedLabels and
// spec.exportedAnnotations give the import: every key but the reserved
// ones and those that are not valid on an object. dropped says, per key
// left out, why (for the export's Valid condition).
func ExportedMetadata(export *mcsv1beta1.ServiceExport) (labels, annotations map[string]string, dropped []string) {
	labels, dl := keep("label", export.Spec.ExportedLabels, func(k, v string) []string {
		return append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...)
	})
	annotations, da := keep("annotation", export.Spec.ExportedAnnotations, func(k, _ string) []string {
		return validation.IsQualifiedName(k)
	})
	return labels, annotations, append(dl, da...)
}

func keep(what string, in map[string]string, invalid func(k, v string) []string) (map[string]string, []string) {
	var out map[string]string
	var dropped []string
	for _, k := range sortedKeys(in) {
		v := in[k]
		if Reserved(k) {
			dropped = append(dropped, fmt.Sprintf("%s %s is reserved for the federation", what, k))
			continue
		}
		if errs := invalid(k, v); len(errs) > 0 {
			dropped = append(dropped, fmt.Sprintf("%s %s is not valid (%s)", what, k, strings.Join(errs, "; ")))
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out, dropped
}

// ValidateExport judges an export by its Service, as Validate does, and
// adds to the Valid message the exported labels and annotations that are
// left out (the export stays valid: everything else is imported).
func ValidateExport(export *mcsv1beta1.ServiceExport, svc *corev1.Service) Validity {
	v := Validate(svc)
	if !v.Valid {
		return v
	}
	if _, _, dropped := ExportedMetadata(export); len(dropped) > 0 {
		v.Message += fmt.Sprintf("; not exported: %s: remove them from spec.exportedLabels and spec.exportedAnnotations", strings.Join(dropped, ", "))
	}
	return v
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
