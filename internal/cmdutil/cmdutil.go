// Package cmdutil holds what every controller binary of the project shares:
// the flags that locate the cluster and serve metrics and probes, klog's
// -v, one text logger for controller-runtime and klog, and a run that
// ends on SIGTERM or SIGINT and exits 1 with the error logged. See
// ExampleRun.
package cmdutil

import (
	"context"
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"antreaplus.io/antreaplus/internal/restconfig"
)

// Common is the flags every controller binary has.
type Common struct {
	Kubeconfig, Context    string
	MetricsAddr, ProbeAddr string
	PprofAddr              string
}

// NewFlagSet returns the command's own flag set: controller-runtime
// registers --kubeconfig on the global one.
func NewFlagSet() *flag.FlagSet {
	return flag.NewFlagSet(os.Args[0], flag.ExitOnError)
}

// AddFlags registers --kubeconfig, --context, --metrics-bind-address,
// --health-probe-bind-address and --pprof-bind-address on fs; cluster names the cluster the
// kubeconfig reaches, for the help text.
func (c *Common) AddFlags(fs *flag.FlagSet, cluster string) {
	fs.StringVar(&c.Kubeconfig, "kubeconfig", "", "kubeconfig of "+cluster+" (default: in-cluster)")
	fs.StringVar(&c.Context, "context", "", "context of the kubeconfig to use")
	fs.StringVar(&c.MetricsAddr, "metrics-bind-address", "0", "address of the Prometheus metrics endpoint; 0 disables it")
	fs.StringVar(&c.ProbeAddr, "health-probe-bind-address", "0", "address of /healthz and /readyz; 0 disables them")
	fs.StringVar(&c.PprofAddr, "pprof-bind-address", "0", "address of Go's /debug/pprof endpoints; 0 disables them")
}

// logConfig is the text logger's configuration; Parse adds its -v and
// -vmodule flags.
var logConfig = textlogger.NewConfig()

// Parse adds the logger's -v and -vmodule and -version to fs and parses the
// command line; with -version it prints version (the program's main.version,
// set at build time with -ldflags "-X main.version=...") and exits.
func Parse(fs *flag.FlagSet, version string) {
	fs.Var(logConfig.Verbosity(), "v", "log verbosity: 0 logs what an operator needs, 1-2 routine steps, 4 and above debugging detail")
	fs.Var(logConfig.VModule(), "vmodule", "per-file verbosity, comma-separated pattern=N (e.g. session=4)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	_ = fs.Parse(os.Args[1:]) // ExitOnError: a bad flag exits with the usage
	if *showVersion {
		fmt.Println(version)
		os.Exit(0)
	}
}

// RESTConfig loads the cluster's client configuration (restconfig.Load).
func (c *Common) RESTConfig() (*rest.Config, error) {
	return restconfig.Load(c.Kubeconfig, c.Context)
}

// ManagerOptions returns controller-runtime options with the scheme, the
// metrics endpoint, the probe and pprof addresses set; callers add the rest.
func (c *Common) ManagerOptions(sch *runtime.Scheme) ctrl.Options {
	return ctrl.Options{
		Scheme:                 sch,
		Metrics:                metricsserver.Options{BindAddress: c.MetricsAddr},
		HealthProbeBindAddress: c.ProbeAddr,
		PprofBindAddress:       c.PprofAddr,
	}
}

// AddPing answers /healthz and /readyz once the manager runs.
func AddPing(mgr manager.Manager) error {
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	return mgr.AddReadyzCheck("ping", healthz.Ping)
}

// Run logs through one text logger (controller-runtime's and klog's), runs
// run with a context that ends on SIGTERM or SIGINT, and exits 1 when run
// fails, logging the error as "<name> failed".
func Run(name string, run func(ctx context.Context) error) {
	logger := textlogger.NewLogger(logConfig)
	ctrl.SetLogger(logger)
	klog.SetLogger(logger)
	if err := run(ctrl.SetupSignalHandler()); err != nil {
		logger.Error(err, name+" failed")
		os.Exit(1)
	}
}
