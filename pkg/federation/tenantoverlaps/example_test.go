package tenantoverlaps_test

import (
	"context"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/federation/tenantoverlaps"
)

// The federation manager runs the controller in every member it leads; it
// reads the registry (MemberClusters) of the supervisor (cfg) directly,
// without a cache, as cmd/federation-manager does.
func ExampleNew() {
	run := func(ctx context.Context, cfg *rest.Config) error {
		sch, err := scheme.New()
		if err != nil {
			return err
		}
		mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: sch})
		if err != nil {
			return err
		}
		opts := manager.DefaultOptions()
		opts.LeaderControllers = append(opts.LeaderControllers, tenantoverlaps.New(mgr.GetAPIReader(), opts.Namespace))
		if err := manager.New(opts, "supervisor-1", mgr.GetClient(), cfg).SetupWithManager(mgr); err != nil {
			return err
		}
		return mgr.Start(ctx)
	}
	_ = run
}
