package exportscope

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// JoinTarget is the federated Service an export of own joins: the one its
// joins annotation names, else its own name. An annotation that does not
// name a Service ("namespace/name", both DNS labels) is an error, and the
// export joins nothing (ok false): a mistyped name joins no other Service.
func JoinTarget(own types.NamespacedName, annotations map[string]string) (target types.NamespacedName, ok bool, err error) {
	v, set := annotations[federationv1alpha1.AnnotationJoins]
	if !set {
		return own, true, nil
	}
	ns, name, found := strings.Cut(strings.TrimSpace(v), "/")
	if !found {
		return types.NamespacedName{}, false, fmt.Errorf("annotation %s: %q is not namespace/name (e.g. payments/api)", federationv1alpha1.AnnotationJoins, v)
	}
	for _, part := range []string{ns, name} {
		if msgs := validation.IsDNS1123Label(part); len(msgs) > 0 {
			return types.NamespacedName{}, false, fmt.Errorf("annotation %s: %q in %q: %s", federationv1alpha1.AnnotationJoins, part, v, strings.Join(msgs, "; "))
		}
	}
	return types.NamespacedName{Namespace: ns, Name: name}, true, nil
}

// Accepts tells whether a Namespace with these labels, in an importing
// member, takes the exports of Namespace from that join its federated
// Services: always from itself, else only with the acceptance label.
func Accepts(namespace string, nsLabels map[string]string, from string) bool {
	return from == namespace || nsLabels[AcceptLabel(from)] == "true"
}

// AcceptLabel is the label that makes a Namespace accept joins from Namespace from.
func AcceptLabel(from string) string { return federationv1alpha1.LabelAcceptFromPrefix + from }
