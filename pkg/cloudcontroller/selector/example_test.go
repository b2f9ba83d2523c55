package selector_test

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"

	"antreaplus.io/antreaplus/pkg/cloudcontroller/binding"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/pollstatus"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/selector"
)

// The selector reconciler in a manager, reading the poll outcomes the poll
// loop records (package cloudcontroller wires them all).
func ExampleReconciler() {
	setup := func(ctx context.Context, mgr ctrl.Manager, store *pollstatus.Store) error {
		if err := binding.AddIndex(ctx, mgr.GetFieldIndexer()); err != nil {
			return err
		}
		return (&selector.Reconciler{Client: mgr.GetClient(), Status: store}).SetupWithManager(mgr)
	}
	_ = setup
}
