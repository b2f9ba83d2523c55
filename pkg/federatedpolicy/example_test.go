package federatedpolicy_test

import (
	"context"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/federatedpolicy"
)

// The controller in a manager of the member cluster (cfg), as package
// membercontroller runs it: Setup asks the API server whether Antrea is
// installed, which the policies' status reports.
func ExampleSetup() {
	run := func(ctx context.Context, cfg *rest.Config) error {
		sch, err := scheme.New()
		if err != nil {
			return err
		}
		mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: sch})
		if err != nil {
			return err
		}
		if err := federatedpolicy.Setup(ctx, mgr); err != nil {
			return err
		}
		if err := federatedpolicy.RegisterMetrics(metrics.Registry, mgr.GetCache()); err != nil {
			return err
		}
		return mgr.Start(ctx)
	}
	_ = run
}
