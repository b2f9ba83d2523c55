package cloudcontroller_test

import (
	"context"
	"time"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/cloudcontroller"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/apiwrites"
	"antreaplus.io/antreaplus/pkg/externalentity"
)

// The cloud controller's reconcilers in a manager of the cluster the cloud
// is imported into (cfg), with its writes counted, and the ExternalEntity
// controller beside them, as cmd/cloud-controller wires them.
func ExampleSetupWithManager() {
	run := func(ctx context.Context, cfg *rest.Config) error {
		sch, err := scheme.New()
		if err != nil {
			return err
		}
		counter := apiwrites.NewCounter()
		mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: sch, NewClient: counter.NewClient})
		if err != nil {
			return err
		}
		opts := cloudcontroller.Options{}
		opts.Sync.MinPollInterval = 30 * time.Second
		if err := cloudcontroller.SetupWithManager(ctx, mgr, opts); err != nil {
			return err
		}
		if err := externalentity.SetupWithManager(mgr, externalentity.Options{}); err != nil {
			return err
		}
		return mgr.Start(ctx)
	}
	_ = run
}
