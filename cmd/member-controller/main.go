// Command member-controller runs in every member cluster of an AntreaPlus
// federation, with the member's own credentials: the member's ServiceExport
// and EntityExport status controllers and its FederatedNetworkPolicy
// translation (package membercontroller).
package main

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/cmdutil"
	"antreaplus.io/antreaplus/pkg/membercontroller"
)

// version is set at build time with -ldflags "-X main.version=..."; --version
// prints it.
var version = "v0.1.0-dev"

func main() {
	var c cmdutil.Common
	var leaderElect bool
	fs := cmdutil.NewFlagSet()
	c.AddFlags(fs, "this member cluster")
	fs.BoolVar(&leaderElect, "leader-elect", false, "elect one active replica through a Lease in "+federationv1alpha1.SystemNamespace+" (when several replicas run)")
	cmdutil.Parse(fs, version)
	cmdutil.Run(membercontroller.Component, func(ctx context.Context) error {
		cfg, err := c.RESTConfig()
		if err != nil {
			return err
		}
		if err := registerMetrics(metrics.Registry); err != nil {
			return err
		}
		return membercontroller.Run(ctx, cfg, membercontroller.Options{
			LeaderElect: leaderElect, MetricsAddr: c.MetricsAddr, ProbeAddr: c.ProbeAddr, PprofAddr: c.PprofAddr,
		})
	})
}

// registerMetrics registers on reg the metrics of what the member controller
// runs (its controllers' and the outage renewals).
func registerMetrics(reg prometheus.Registerer) error {
	return membercontroller.RegisterMetrics(reg)
}
