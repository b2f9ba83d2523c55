package install

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"antreaplus.io/antreaplus/internal/subset"
)

// crdEstablishTimeout bounds the wait for the API server to serve a CRD
// it accepted (it takes well under a second).
const crdEstablishTimeout = time.Minute

// antreasOwn says whether an existing CRD is Antrea's (its manifests label
// every CRD app=antrea): where Antrea runs, its crd.antrea.io CRDs, of its
// own version, are kept, as Helm keeps CRDs it finds.
func antreasOwn(have *unstructured.Unstructured) bool {
	return have != nil && have.GetLabels()["app"] == "antrea"
}

// applyCRDs applies the chart's CRDs, keeping Antrea's, and waits until
// the API server serves them.
func (c *cluster) applyCRDs(ctx context.Context, crds []*unstructured.Unstructured, p *progress) error {
	// Concurrently: each CRD is read (Antrea's own are left alone), applied,
	// and, when the stored object says it is established already, not
	// waited for.
	outs := make([]outcome, len(crds))
	ready := make([]bool, len(crds))
	errs := make([]error, len(crds))
	sem := make(chan struct{}, applyConcurrency)
	var wg sync.WaitGroup
	for i, crd := range crds {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			have, err := c.get(ctx, crd)
			if err != nil {
				errs[i] = err
				return
			}
			if antreasOwn(have) {
				ready[i] = true
				return
			}
			if have != nil && holdsManifest(have, crd) {
				// An API server validates a CRD's whole schema and compiles
				// its CEL rules on every write, unchanged or not: on a
				// loaded machine applying the chart's CRDs again timed
				// out. A CRD edited since is not held, and is applied.
				outs[i] = unchanged
				ready[i], _ = established(have)
				return
			}
			ri, err := c.resource(crd.GroupVersionKind(), "")
			if err != nil {
				errs[i] = err
				return
			}
			var after *unstructured.Unstructured
			outs[i], after, errs[i] = c.applyOver(ctx, ri, crd, have)
			if after != nil {
				ready[i], _ = established(after)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i, crd := range crds {
		if outs[i] == "" {
			p.note("kept (Antrea's)", crd)
			continue
		}
		p.applied(outs[i], crd)
	}
	for i, crd := range crds {
		if ready[i] {
			continue
		}
		var last string
		err := wait.PollUntilContextTimeout(ctx, pollInterval/2, crdEstablishTimeout, true, func(ctx context.Context) (bool, error) {
			have, err := c.get(ctx, crd)
			if err != nil || have == nil {
				last = fmt.Sprintf("not readable: %v", err)
				return false, nil // retried until the timeout
			}
			ok, why := established(have)
			last = why
			return ok, nil
		})
		if err != nil {
			return fmt.Errorf("%s was not established within %s (%s): look at its conditions with 'kubectl get crd %s -o yaml'",
				ref(crd), crdEstablishTimeout, last, crd.GetName())
		}
	}
	// The new kinds are served now: discover them again.
	c.mapper.Reset()
	return nil
}

// holdsManifest says whether the stored CRD has every field of the
// manifest's spec, labels and annotations.
func holdsManifest(have, manifest *unstructured.Unstructured) bool {
	meta := func(o *unstructured.Unstructured) map[string]any {
		out := map[string]any{}
		if l := o.GetLabels(); l != nil {
			out["labels"] = o.Object["metadata"].(map[string]any)["labels"]
		}
		if a := o.GetAnnotations(); a != nil {
			out["annotations"] = o.Object["metadata"].(map[string]any)["annotations"]
		}
		return out
	}
	return subset.Of(manifest.Object["spec"], have.Object["spec"]) && subset.Of(meta(manifest), meta(have))
}

// established says whether a CRD's Established condition is true, else
// what its conditions say.
func established(crd *unstructured.Unstructured) (bool, string) {
	conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	why := "no Established condition yet"
	for _, c := range conditions {
		m, _ := c.(map[string]any)
		switch {
		case m["type"] == "Established" && m["status"] == "True":
			return true, ""
		case m["type"] == "Established":
			why = fmt.Sprintf("Established %v: %v", m["status"], m["message"])
		case m["type"] == "NamesAccepted" && m["status"] == "False":
			return false, fmt.Sprintf("names not accepted: %v", m["message"])
		}
	}
	return false, why
}

// retryAnnotation, set on a CRD whose deletion is stuck, makes the API
// server's CRD finalizer try again at once.
const retryAnnotation = "antreaplus.io/uninstall-retry"

// stuckDeleting says whether a CRD being deleted is waiting for the API
// server to retry deleting its instances: the finalizer could not list
// them ("storage is (re)initializing" while the watch cache of a CRD
// changed moments before starts again) and retries with a backoff that
// grows, failure after failure, to minutes.
func stuckDeleting(crd *unstructured.Unstructured) bool {
	if crd.GetKind() != "CustomResourceDefinition" || crd.GetDeletionTimestamp() == nil {
		return false
	}
	conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conditions {
		m, _ := c.(map[string]any)
		if m["type"] == "Terminating" && m["reason"] == "InstanceDeletionFailed" {
			return true
		}
	}
	return false
}

// nudge annotates a CRD stuck in deletion: the finalizer requeues a CRD on
// any change but to its own condition, so it retries now rather than after
// its backoff. A failed nudge changes nothing: the finalizer retries anyway.
func (c *cluster) nudge(ctx context.Context, crd *unstructured.Unstructured, now time.Time) {
	ri, err := c.resource(crd.GroupVersionKind(), "")
	if err != nil {
		return
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, retryAnnotation, now.UTC().Format(time.RFC3339Nano))
	_, _ = ri.Patch(ctx, crd.GetName(), types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: ManagedBy})
}
