package networkstatus_test

import (
	"context"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/networks/networkstatus"
)

// The Network status controller in a manager of the member cluster (cfg),
// as package membercontroller runs it, and its metrics, read from the
// manager's cache.
func ExampleReconciler() {
	run := func(ctx context.Context, cfg *rest.Config) error {
		sch, err := scheme.New()
		if err != nil {
			return err
		}
		mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: sch})
		if err != nil {
			return err
		}
		if err := (&networkstatus.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
			return err
		}
		if err := networkstatus.RegisterMetrics(metrics.Registry, mgr.GetCache()); err != nil {
			return err
		}
		return mgr.Start(ctx)
	}
	_ = run
}
