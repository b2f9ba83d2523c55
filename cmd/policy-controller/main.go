// Command policy-controller runs in a member cluster: it compiles the
// Antrea-native policies that apply to ExternalEntities (package
// policycompiler) and distributes the rules to their enforcement points
// over an authenticated HTTPS watch API (package policydistribution): each
// VM agent gets its own VM's rules, the cloud controller those of
// agentless VMs. It writes what agents report to their VirtualMachines'
// status, and issues the agents' tokens.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"antreaplus.io/antreaplus/pkg/federation/names"
	"antreaplus.io/antreaplus/pkg/policydistribution/controlplane"
	"antreaplus.io/antreaplus/pkg/restconfig"
	"antreaplus.io/antreaplus/pkg/scheme"
)

type flags struct {
	kubeconfig, context      string
	namespace, listenAddress string
	certFile, keyFile        string
	certDir, sans            string
	agentlessNode            string
	heartbeat                time.Duration
	withoutPods, leaderElect bool
	metricsAddr, probeAddr   string
}

func parseFlags() *flags {
	f := &flags{}
	host, _ := os.Hostname()
	fs := flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of this member cluster (default: in-cluster)")
	fs.StringVar(&f.context, "context", "", "context of the kubeconfig to use")
	fs.StringVar(&f.namespace, "namespace", names.Namespace, "the controller's namespace (holds the agentless consumer's token)")
	fs.StringVar(&f.listenAddress, "listen-address", ":8443", "address of the HTTPS policy distribution API")
	fs.StringVar(&f.certFile, "tls-cert-file", "", "serving certificate of the API (default: a self-signed one in --cert-dir)")
	fs.StringVar(&f.keyFile, "tls-key-file", "", "key of --tls-cert-file")
	fs.StringVar(&f.certDir, "cert-dir", "/var/lib/antreaplus/policy-controller/certs", "where a self-signed CA (ca.crt, for agents) and serving certificate are kept")
	fs.StringVar(&f.sans, "tls-san", strings.Join([]string{host, "localhost", "127.0.0.1"}, ","), "comma-separated host names and IPs of the self-signed serving certificate")
	fs.StringVar(&f.agentlessNode, "agentless-node", "antreaplus-cloud-controller", "externalNode of agentless VMs (must match the cloud controller's)")
	fs.DurationVar(&f.heartbeat, "heartbeat", 10*time.Second, "interval of Bookmark events on idle watch streams")
	fs.BoolVar(&f.withoutPods, "without-pods", false, "do not watch Pods (rules selecting Pods as peers then match none)")
	fs.BoolVar(&f.leaderElect, "leader-elect", false, "elect one active replica through a Lease in --namespace")
	fs.StringVar(&f.metricsAddr, "metrics-bind-address", "0", "address of /metrics and /agents (per-agent status); 0 disables it")
	fs.StringVar(&f.probeAddr, "health-probe-bind-address", "0", "address of /healthz and /readyz; 0 disables them")
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
		logger.Error(err, "policy-controller failed")
		os.Exit(1)
	}
}

func run(ctx context.Context, f *flags) error {
	cfg, err := restconfig.Load(f.kubeconfig, f.context)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 100, 200
	cert, err := certificate(f)
	if err != nil {
		return err
	}
	sch, err := scheme.New()
	if err != nil {
		return err
	}
	var agents atomic.Pointer[http.Handler]
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: sch,
		Cache:  controlplane.CacheOptions(),
		Metrics: metricsserver.Options{BindAddress: f.metricsAddr, ExtraHandlers: map[string]http.Handler{
			"/agents": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if h := agents.Load(); h != nil {
					(*h).ServeHTTP(w, r)
				}
			}),
		}},
		HealthProbeBindAddress:  f.probeAddr,
		LeaderElection:          f.leaderElect,
		LeaderElectionID:        "antreaplus-policy-controller",
		LeaderElectionNamespace: f.namespace,
	})
	if err != nil {
		return fmt.Errorf("creating the controller manager: %w", err)
	}
	cp, err := controlplane.Setup(ctx, mgr, controlplane.Options{
		Namespace: f.namespace, ListenAddress: f.listenAddress, Certificate: cert,
		AgentlessNode: f.agentlessNode, Heartbeat: f.heartbeat, WithoutPods: f.withoutPods,
		Registry: ctrlmetrics.Registry,
	})
	if err != nil {
		return err
	}
	h := cp.Server.AgentsHandler()
	agents.Store(&h)
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	ctrl.Log.Info("Starting the policy controller", "server", cfg.Host, "listen", f.listenAddress, "epoch", cp.Hub.Epoch())
	return mgr.Start(ctx)
}

func certificate(f *flags) (tls.Certificate, error) {
	if f.certFile != "" || f.keyFile != "" {
		cert, err := tls.LoadX509KeyPair(f.certFile, f.keyFile)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("loading the serving certificate: %w", err)
		}
		return cert, nil
	}
	return controlplane.EnsureServingCert(f.certDir, strings.Split(f.sans, ","))
}
