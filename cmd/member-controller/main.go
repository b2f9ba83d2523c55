// Command member-controller runs in every member cluster of an AntreaPlus
// federation, with the member's own credentials. It keeps the Valid and
// Ready conditions of the member's ServiceExports true to KEP-1645 (package
// exportstatus); the member's leader writes their Conflict condition.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"antreaplus.io/antreaplus/pkg/federation/names"
	"antreaplus.io/antreaplus/pkg/restconfig"
	"antreaplus.io/antreaplus/pkg/scheme"
	"antreaplus.io/antreaplus/pkg/serviceexport/exportstatus"
)

type flags struct {
	kubeconfig, context    string
	metricsAddr, probeAddr string
	leaderElect            bool
}

func parseFlags() *flags {
	f := &flags{}
	// Our own flag set: controller-runtime registers --kubeconfig on the global one.
	fs := flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of this member cluster (default: in-cluster)")
	fs.StringVar(&f.context, "context", "", "context of the kubeconfig to use")
	fs.StringVar(&f.metricsAddr, "metrics-bind-address", "0", "address of the Prometheus metrics endpoint; 0 disables it")
	fs.StringVar(&f.probeAddr, "health-probe-bind-address", "0", "address of /healthz and /readyz; 0 disables them")
	fs.BoolVar(&f.leaderElect, "leader-elect", false, "elect one active replica through a Lease in "+names.Namespace+" (when several replicas run)")
	klog.InitFlags(fs)
	_ = fs.Parse(os.Args[1:])
	return f
}

func main() {
	f := parseFlags()
	logger := textlogger.NewLogger(textlogger.NewConfig())
	ctrl.SetLogger(logger)
	klog.SetLogger(logger)
	if err := run(ctrl.SetupSignalHandler(), f); err != nil {
		logger.Error(err, "member-controller failed")
		os.Exit(1)
	}
}

func run(ctx context.Context, f *flags) error {
	cfg, err := restconfig.Load(f.kubeconfig, f.context)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 100, 200
	sch, err := scheme.New()
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  sch,
		Metrics:                 metricsserver.Options{BindAddress: f.metricsAddr},
		HealthProbeBindAddress:  f.probeAddr,
		LeaderElection:          f.leaderElect,
		LeaderElectionID:        "antreaplus-member-controller",
		LeaderElectionNamespace: names.Namespace,
	})
	if err != nil {
		return fmt.Errorf("creating the controller manager: %w", err)
	}
	if err := (&exportstatus.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the ServiceExport status controller: %w", err)
	}
	exportstatus.RegisterMetrics(mgr.GetCache())
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	ctrl.Log.Info("Starting the member controller", "server", cfg.Host)
	return mgr.Start(ctx)
}
