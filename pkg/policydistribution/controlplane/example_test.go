package controlplane_test

import (
	"context"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/policydistribution/controlplane"
)

// The policy controller's distribution in a manager of its member cluster
// (cfg), as cmd/policy-controller runs it: a self-signed serving
// certificate, the cache the feeder needs, and everything set up on the
// manager. cp.Hub.Watch serves a consumer in the same process;
// cp.Server.AgentsHandler() shows every agent's status.
func ExampleSetup() {
	run := func(ctx context.Context, cfg *rest.Config) error {
		cert, err := controlplane.EnsureServingCert("/var/lib/antreaplus/policy-controller/certs",
			[]string{"policy-controller.antreaplus-system.svc"})
		if err != nil {
			return err
		}
		sch, err := scheme.New()
		if err != nil {
			return err
		}
		mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: sch, Cache: controlplane.CacheOptions()})
		if err != nil {
			return err
		}
		cp, err := controlplane.Setup(ctx, mgr, controlplane.Options{
			Namespace: "antreaplus-system", ListenAddress: ":8443", Certificate: cert,
			AgentlessNode: "antreaplus-cloud-controller",
		})
		if err != nil {
			return err
		}
		if err := controlplane.RegisterMetrics(metrics.Registry, cp); err != nil {
			return err
		}
		return mgr.Start(ctx)
	}
	_ = run
}
