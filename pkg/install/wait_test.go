package install

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func deployment(generation int64, spec, status map[string]any) *unstructured.Unstructured {
	d := &unstructured.Unstructured{Object: map[string]any{"spec": spec, "status": status}}
	d.SetGeneration(generation)
	return d
}

func TestRollout(t *testing.T) {
	for _, c := range []struct {
		name   string
		d      *unstructured.Unstructured
		done   bool
		failed bool
	}{
		{"available", deployment(2, map[string]any{"replicas": int64(2)},
			map[string]any{"observedGeneration": int64(2), "replicas": int64(2), "updatedReplicas": int64(2), "availableReplicas": int64(2)}), true, false},
		{"default of one replica", deployment(1, map[string]any{},
			map[string]any{"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1), "availableReplicas": int64(1)}), true, false},
		{"new generation not seen", deployment(3, map[string]any{"replicas": int64(1)},
			map[string]any{"observedGeneration": int64(2), "replicas": int64(1), "updatedReplicas": int64(1), "availableReplicas": int64(1)}), false, false},
		{"not all updated", deployment(1, map[string]any{"replicas": int64(2)},
			map[string]any{"observedGeneration": int64(1), "replicas": int64(2), "updatedReplicas": int64(1), "availableReplicas": int64(2)}), false, false},
		{"old replicas left", deployment(1, map[string]any{"replicas": int64(1)},
			map[string]any{"observedGeneration": int64(1), "replicas": int64(2), "updatedReplicas": int64(1), "availableReplicas": int64(1)}), false, false},
		{"not available", deployment(1, map[string]any{"replicas": int64(1)},
			map[string]any{"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1)}), false, false},
		{"deadline exceeded", deployment(1, map[string]any{"replicas": int64(1)},
			map[string]any{"observedGeneration": int64(1), "conditions": []any{
				map[string]any{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded", "message": "ReplicaSet has timed out progressing."},
			}}), false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			done, why, err := rollout(c.d)
			if done != c.done || errors.Is(err, errRolloutFailed) != c.failed {
				t.Errorf("rollout = %t, %q, %v; want done %t, failed %t", done, why, err, c.done, c.failed)
			}
			if !done && why == "" {
				t.Error("no reason given while waiting")
			}
		})
	}
}
