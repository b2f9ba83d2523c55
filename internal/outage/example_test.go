package outage_test

import (
	"context"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"antreaplus.io/antreaplus/internal/outage"
)

// A controller-runtime manager replaced by a fresh one, with fresh
// informers, each time its API server answers again after an outage.
func ExampleRenewer() {
	run := func(ctx context.Context, cfg *rest.Config) error {
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return err
		}
		r := outage.Renewer{Component: "example", Probe: outage.Readyz(cs.Discovery().RESTClient()), Log: ctrl.Log}
		return r.Run(ctx, func(ctx context.Context, g outage.Generation) error {
			mgr, err := ctrl.NewManager(cfg, ctrl.Options{})
			if err != nil {
				return err
			}
			// ... controllers set up on mgr ...
			return mgr.Start(ctx) // until the next outage or the end of ctx
		})
	}
	_ = run
}
