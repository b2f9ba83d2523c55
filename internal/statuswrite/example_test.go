package statuswrite_test

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/statuswrite"
)

// reconcile ends as every status controller's reconcile does: no write when
// the status would not change, otherwise a write at the resourceVersion
// read, retried soon on a conflict.
func reconcile(ctx context.Context, c client.Client, key client.ObjectKey) (ctrl.Result, error) {
	start := time.Now()
	w := statuswrite.New("network-status", c)
	n := &federationv1alpha1.Network{}
	if err := c.Get(ctx, key, n); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	want := *n.Status.DeepCopy()
	want.ObservedGeneration = n.Generation // decided by a pure function in real controllers
	if equality.Semantic.DeepEqual(n.Status, want) {
		return w.Unchanged()
	}
	n.Status = want
	return w.Write(ctx, n, "Network", start)
}

func Example() {
	_ = reconcile
}
