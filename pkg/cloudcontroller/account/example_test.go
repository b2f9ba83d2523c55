package account_test

import (
	"context"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"antreaplus.io/antreaplus/pkg/cloudcontroller/account"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/accountprovider"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/binding"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/pollstatus"
)

// The account reconciler in a manager, sharing the live providers and the
// poll outcomes with the poll loop (package cloudcontroller wires them
// all).
func ExampleReconciler() {
	setup := func(ctx context.Context, mgr ctrl.Manager, providers *accountprovider.Set, store *pollstatus.Store) error {
		if err := binding.AddIndex(ctx, mgr.GetFieldIndexer()); err != nil {
			return err
		}
		if err := account.AddIndex(ctx, mgr.GetFieldIndexer()); err != nil {
			return err
		}
		r := &account.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(),
			Providers: providers, Status: store, Heartbeat: 10 * time.Minute}
		return r.SetupWithManager(mgr)
	}
	_ = setup
}
