package install

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
)

// pollInterval is how often a wait reads the objects it waits for.
const pollInterval = 250 * time.Millisecond

// DefaultTimeout bounds the waits of Install, Upgrade and Uninstall when
// their options give none.
const DefaultTimeout = 5 * time.Minute

// errRolloutFailed: a Deployment's controller gave up (its progress deadline).
var errRolloutFailed = errors.New("the rollout failed")

// rollout says whether a Deployment has rolled out: every replica updated
// to its newest generation and available. Else it says what it waits for;
// errRolloutFailed when the progress deadline has passed.
func rollout(d *unstructured.Unstructured) (bool, string, error) {
	generation := d.GetGeneration()
	observed, _, _ := unstructured.NestedInt64(d.Object, "status", "observedGeneration")
	want, found, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
	if !found {
		want = 1
	}
	replicas, _, _ := unstructured.NestedInt64(d.Object, "status", "replicas")
	updated, _, _ := unstructured.NestedInt64(d.Object, "status", "updatedReplicas")
	available, _, _ := unstructured.NestedInt64(d.Object, "status", "availableReplicas")
	conditions, _, _ := unstructured.NestedSlice(d.Object, "status", "conditions")
	for _, c := range conditions {
		m, _ := c.(map[string]any)
		if m["type"] == "Progressing" && m["reason"] == "ProgressDeadlineExceeded" {
			return false, fmt.Sprint(m["message"]), errRolloutFailed
		}
	}
	switch {
	case observed < generation:
		return false, "its controller has not seen the newest generation yet", nil
	case updated < want:
		return false, fmt.Sprintf("%d of %d replicas updated", updated, want), nil
	case replicas > updated:
		return false, fmt.Sprintf("%d old replicas still running", replicas-updated), nil
	case available < updated:
		return false, fmt.Sprintf("%d of %d updated replicas available", available, updated), nil
	}
	return true, "", nil
}

// waitRollouts waits until every Deployment of objs has rolled out, for
// timeout in all.
func (c *cluster) waitRollouts(ctx context.Context, objs []*unstructured.Unstructured, timeout time.Duration, progress *progress) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		var state string
		var failed error
		err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
			d, err := c.get(ctx, o)
			if err != nil || d == nil {
				state = fmt.Sprintf("not readable (%v)", err)
				return false, nil // retried until the timeout
			}
			var done bool
			done, state, failed = rollout(d)
			return done || failed != nil, nil
		})
		if failed != nil {
			err = failed
		}
		if err != nil {
			return fmt.Errorf("%s did not become available within %s (%s: %w): look at its Pods with 'kubectl -n %s describe deployment %s' and 'kubectl -n %s get pods'",
				ref(o), timeout, state, err, o.GetNamespace(), o.GetName(), o.GetNamespace())
		}
		progress.note("available", o)
	}
	return nil
}
