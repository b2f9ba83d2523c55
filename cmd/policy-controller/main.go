// Command policy-controller runs in a member cluster: it compiles the
// Antrea-native policies that apply to ExternalEntities (package
// policycompiler) and distributes the rules to their enforcement points
// over an authenticated HTTPS watch API (package policydistribution): each
// VM agent gets its own VM's rules, the cloud controller those of
// agentless VMs. It writes what agents report to their VirtualMachines'
// status, and issues the agents' tokens. Beside /metrics, the metrics
// endpoint serves /agents: every agent's connection and applied generation.
// With --dns-server it tells agents the member's DNS server, which they
// forward clusterset.local and cluster.local to.
package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/cmdutil"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/policydistribution/controlplane"
)

// The policy controller's leader election (--leader-elect): its Lease and
// the events it records (chart: files/rbac/policy-controller.yaml).
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=create,namespace=antreaplus-system
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,resourceNames=antreaplus-policy-controller,verbs=get;update,namespace=antreaplus-system
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch,namespace=antreaplus-system

// version is set at build time with -ldflags "-X main.version=..."; --version
// prints it.
var version = "v0.1.0-dev"

type flags struct {
	cmdutil.Common
	namespace, listenAddress string
	certFile, keyFile        string
	certDir, sans            string
	agentlessNode, dnsServer string
	heartbeat                time.Duration
	statsInterval            time.Duration
	withoutPods, leaderElect bool
}

func main() {
	f := &flags{}
	host, _ := os.Hostname()
	fs := cmdutil.NewFlagSet()
	f.AddFlags(fs, "this member cluster")
	fs.StringVar(&f.namespace, "namespace", federationv1alpha1.SystemNamespace, "the controller's namespace (holds the agentless consumer's token)")
	fs.StringVar(&f.listenAddress, "listen-address", ":8443", "address of the HTTPS policy distribution API")
	fs.StringVar(&f.certFile, "tls-cert-file", "", "serving certificate of the API (default: a self-signed one in --cert-dir)")
	fs.StringVar(&f.keyFile, "tls-key-file", "", "key of --tls-cert-file")
	fs.StringVar(&f.certDir, "cert-dir", "/var/lib/antreaplus/policy-controller/certs", "where a self-signed CA (ca.crt, for agents) and serving certificate are kept")
	fs.StringVar(&f.sans, "tls-san", strings.Join([]string{host, "localhost", "127.0.0.1"}, ","), "comma-separated host names and IPs of the self-signed serving certificate")
	fs.StringVar(&f.agentlessNode, "agentless-node", "antreaplus-cloud-controller", "externalNode of agentless VMs (must match the cloud controller's)")
	fs.StringVar(&f.dnsServer, "dns-server", "", "the member's DNS server as VMs reach it, host:port (over TCP), told to VM agents, which forward clusterset.local and cluster.local to it (empty: agents leave VMs' resolvers alone)")
	fs.DurationVar(&f.heartbeat, "heartbeat", 10*time.Second, "interval of Bookmark events on idle watch streams")
	fs.DurationVar(&f.statsInterval, "stats-interval", 30*time.Second, "how often the rule counters agents report are written to PolicyStats objects")
	fs.BoolVar(&f.withoutPods, "without-pods", false, "do not watch Pods (rules selecting Pods as peers then match none)")
	fs.BoolVar(&f.leaderElect, "leader-elect", false, "elect one active replica through a Lease in --namespace")
	cmdutil.Parse(fs, version)
	cmdutil.Run("policy-controller", func(ctx context.Context) error { return run(ctx, f) })
}

func run(ctx context.Context, f *flags) error {
	if err := checkDNSServer(f.dnsServer); err != nil {
		return err
	}
	cfg, err := f.RESTConfig()
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
	opts := f.ManagerOptions(sch)
	opts.Cache = controlplane.CacheOptions()
	// /agents: every agent's status, beside /metrics.
	opts.Metrics.ExtraHandlers = map[string]http.Handler{
		"/agents": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if h := agents.Load(); h != nil {
				(*h).ServeHTTP(w, r)
			}
		}),
	}
	opts.LeaderElection, opts.LeaderElectionID, opts.LeaderElectionNamespace = f.leaderElect, "antreaplus-policy-controller", f.namespace
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return fmt.Errorf("creating the controller manager: %w", err)
	}
	cp, err := controlplane.Setup(ctx, mgr, controlplane.Options{
		Namespace: f.namespace, ListenAddress: f.listenAddress, Certificate: cert,
		AgentlessNode: f.agentlessNode, Heartbeat: f.heartbeat, WithoutPods: f.withoutPods,
		DNSServer: f.dnsServer, StatsInterval: f.statsInterval,
	})
	if err != nil {
		return err
	}
	if err := registerMetrics(ctrlmetrics.Registry, cp); err != nil {
		return err
	}
	h := cp.Server.AgentsHandler()
	agents.Store(&h)
	if err := cmdutil.AddPing(mgr); err != nil {
		return err
	}
	ctrl.Log.Info("Starting the policy controller", "server", cfg.Host, "listen", f.listenAddress, "epoch", cp.Hub.Epoch(),
		"dnsServer", f.dnsServer)
	return mgr.Start(ctx)
}

// registerMetrics registers on reg the metrics of what the policy
// controller runs: the distribution cp.
func registerMetrics(reg prometheus.Registerer, cp *controlplane.ControlPlane) error {
	return controlplane.RegisterMetrics(reg, cp)
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

// checkDNSServer accepts an empty --dns-server or host:port with a port.
func checkDNSServer(addr string) error {
	if addr == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err == nil && host != "" {
		_, err = strconv.ParseUint(port, 10, 16)
	}
	if err != nil || host == "" {
		return fmt.Errorf("--dns-server %q: want host:port, e.g. 10.96.0.53:53, the member's DNS server as VMs reach it", addr)
	}
	return nil
}
