package install

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// namespaceObject is the namespace antreaplus-system, labelled as the
// release's.
func namespaceObject() *unstructured.Unstructured {
	o := &unstructured.Unstructured{}
	o.SetAPIVersion("v1")
	o.SetKind("Namespace")
	o.SetName(federationv1alpha1.SystemNamespace)
	o.SetLabels(releaseLabels())
	return o
}

// ensureNamespace applies the namespace, first waiting until one being
// deleted (an uninstall or a federation leave that is not finished) is gone.
func (c *cluster) ensureNamespace(ctx context.Context, timeout time.Duration, p *progress) error {
	ns := namespaceObject()
	have, err := c.get(ctx, ns)
	if err != nil {
		return err
	}
	if have != nil && have.GetDeletionTimestamp() != nil {
		p.note("waiting for the deletion of", ns)
		if err := c.waitGone(ctx, ns, timeout); err != nil {
			return fmt.Errorf("namespace %s is still being deleted after %s: see what holds it with 'kubectl get namespace %s -o yaml' (status.conditions), then run the command again",
				federationv1alpha1.SystemNamespace, timeout, federationv1alpha1.SystemNamespace)
		}
	}
	out, err := c.apply(ctx, ns)
	if err != nil {
		return err
	}
	p.applied(out, ns)
	return nil
}

// waitGone waits until an object like o no longer exists.
func (c *cluster) waitGone(ctx context.Context, o *unstructured.Unstructured, timeout time.Duration) error {
	return wait.PollUntilContextTimeout(ctx, pollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		have, err := c.get(ctx, o)
		return err == nil && have == nil, nil
	})
}
