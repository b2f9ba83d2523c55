package install

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kindVariants are values that, between them, make the chart render every
// kind it can: every role, a component with two replicas (a
// PodDisruptionBudget), a fixed DNS address (a ConfigMap), and each DNS
// mode. TestChartKinds checks that no kind of the templates is missing.
func kindVariants() []map[string]any {
	on := func() map[string]any { return map[string]any{"enabled": true} }
	return []map[string]any{
		{
			"member": on(), "supervisor": on(), "cloud": on(),
			"memberController": map[string]any{"replicas": 2},
			"coredns":          map[string]any{"service": map[string]any{"clusterIP": "10.96.0.53"}},
		},
		{"member": on(), "dns": map[string]any{"mode": "corefile"}},
	}
}

// chartKinds are the kinds the chart can render, whatever the values: those
// whose objects labelled as the release's an upgrade prunes and an
// uninstall deletes.
func chartKinds(kubeVersion string) ([]schema.GroupVersionKind, error) {
	var kinds []schema.GroupVersionKind
	for _, v := range kindVariants() {
		r, err := Render(RenderOptions{Values: v, KubeVersion: kubeVersion})
		if err != nil {
			return nil, fmt.Errorf("rendering the chart to learn its kinds: %w", err)
		}
		kinds = appendKinds(kinds, r.Objects)
	}
	return kinds, nil
}

// appendKinds adds the kinds of objs that kinds lacks.
func appendKinds(kinds []schema.GroupVersionKind, objs []*unstructured.Unstructured) []schema.GroupVersionKind {
	for _, o := range objs {
		if gvk := o.GroupVersionKind(); !slices.Contains(kinds, gvk) {
			kinds = append(kinds, gvk)
		}
	}
	return kinds
}
