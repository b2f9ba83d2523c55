package inventorysync_test

import (
	"context"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"antreaplus.io/antreaplus/pkg/cloudcontroller/accountprovider"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/binding"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/inventorysync"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/pollstatus"
)

// The poll loop in a manager, polling with the providers the account
// reconciler builds and recording every outcome (package cloudcontroller
// wires them all).
func ExampleReconciler() {
	setup := func(ctx context.Context, mgr ctrl.Manager, providers *accountprovider.Set, store *pollstatus.Store) error {
		if err := binding.AddIndex(ctx, mgr.GetFieldIndexer()); err != nil {
			return err
		}
		r := &inventorysync.Reconciler{Client: mgr.GetClient(), Providers: providers, Status: store,
			Options: inventorysync.Options{MinPollInterval: 30 * time.Second, Workers: 16}}
		return r.SetupWithManager(mgr)
	}
	_ = setup
}

// After failed polls the next one waits 2, 4, then 8 times the interval.
func ExampleBackoff() {
	for failures := range 5 {
		fmt.Println(failures, inventorysync.Backoff(time.Minute, failures))
	}
	// Output:
	// 0 1m0s
	// 1 2m0s
	// 2 4m0s
	// 3 8m0s
	// 4 8m0s
}
