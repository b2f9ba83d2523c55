// Command cloud-controller imports cloud VMs, their network interfaces and
// cloud-native services into the cluster it runs against: it polls every
// CloudProviderAccount's regions through the account's provider (AWS or
// Azure), keeps VirtualMachine, NetworkInterface and CloudNativeService
// objects in the namespace of the account's CloudEntitySelector in step
// with the cloud, and (unless --externalentity-controller=false) keeps one
// Antrea ExternalEntity per interface and service.
//
//	cloud-controller --kubeconfig ~/.kube/config --context member-1 --metrics-bind-address :8082
//
// With --policy-server, it also enforces the rules of agentless VMs with
// security groups: it watches the policy controller's agentless scope
// (authenticating with the token in --policy-token-file, the token of the
// Secret policy-distribution-agentless-consumer of the policy controller's
// namespace) and keeps the groups named --agentless-group-prefix* in step.
//
//	cloud-controller --policy-server https://policy-controller:8443 \
//	  --policy-token-file /var/run/antreaplus/agentless/token --policy-ca-file /var/run/antreaplus/agentless/ca.crt
//
// Metrics (controller-runtime's, antreaplus_cloud_controller_api_writes_total
// and antreaplus_agentless_*) are served on --metrics-bind-address; 0
// disables them.
package main

import (
	"context"
	"crypto/x509"
	"fmt"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"antreaplus.io/antreaplus/internal/cmdutil"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/cloudcontroller"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/agentless"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/apiwrites"
	"antreaplus.io/antreaplus/pkg/externalentity"
	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
)

// The cloud controller's leader election (--leader-elect, its Lease in
// --leader-election-namespace, which the chart sets to its own) and the
// events it records there (chart: files/rbac/cloud-controller.yaml).
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=create,namespace=antreaplus-system
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,resourceNames=antreaplus-cloud-controller,verbs=get;update,namespace=antreaplus-system
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch,namespace=antreaplus-system

// version is set at build time with -ldflags "-X main.version=..."; --version
// prints it.
var version = "v0.1.0-dev"

type flags struct {
	cmdutil.Common
	qps                     float64
	burst                   int
	leaderElect             bool
	leaderElectionNamespace string
	caFile                  string
	externalEntities        bool
	agentlessNode           string
	policyServer            string
	policyTokenFile         string
	policyCAFile            string
	agentless               agentless.Options
	opts                    cloudcontroller.Options
}

func main() {
	f := &flags{}
	fs := cmdutil.NewFlagSet()
	f.AddFlags(fs, "the cluster to import into")
	fs.Float64Var(&f.qps, "kube-api-qps", 500, "queries per second to the API server")
	fs.IntVar(&f.burst, "kube-api-burst", 1000, "burst of queries to the API server")
	fs.BoolVar(&f.leaderElect, "leader-elect", false, "run only while holding a Lease, so that replicas can stand by")
	fs.StringVar(&f.leaderElectionNamespace, "leader-election-namespace", "kube-system", "namespace of the Lease of --leader-elect")
	fs.StringVar(&f.caFile, "cloud-ca-file", "", "PEM file of CAs to trust for cloud endpoints besides the system's (e.g. the development emulator's)")
	fs.BoolVar(&f.opts.Provider.AllowCrossNamespaceSecrets, "allow-cross-namespace-secrets", false, "let an account use a Secret outside its own namespace")
	fs.DurationVar(&f.opts.Sync.MinPollInterval, "min-poll-interval", 30*time.Second, "shortest poll interval an account may ask for")
	fs.DurationVar(&f.opts.Sync.PollIntervalOverride, "poll-interval-override", 0, "poll every account at this interval, whatever it asks (development and tests only)")
	fs.DurationVar(&f.opts.Sync.PollTimeout, "poll-timeout", 5*time.Minute, "longest one poll of one region may take")
	fs.IntVar(&f.opts.Sync.Workers, "write-workers", 16, "API writes one poll sends at a time")
	fs.IntVar(&f.opts.Sync.Concurrency, "poll-concurrency", 4, "regions polled at a time")
	fs.DurationVar(&f.opts.Heartbeat, "status-heartbeat", 10*time.Minute, "how stale an account's lastSuccessfulPollTime may get before it is written on its own")
	fs.BoolVar(&f.externalEntities, "externalentity-controller", true, "also run the ExternalEntity controller")
	fs.StringVar(&f.agentlessNode, "agentless-node", "antreaplus-cloud-controller", "externalNode of the ExternalEntities of agentless VMs and services")
	fs.StringVar(&f.policyServer, "policy-server", "", "URL of the policy controller's distribution API, https://host:port; enables agentless enforcement with security groups")
	fs.StringVar(&f.policyTokenFile, "policy-token-file", "", "file holding the agentless consumer's token (the Secret policy-distribution-agentless-consumer of the policy controller)")
	fs.StringVar(&f.policyCAFile, "policy-ca-file", "", "CA certificates of the policy controller's serving certificate (default: the system's)")
	fs.StringVar(&f.agentless.Prefix, "agentless-group-prefix", "antreaplus-", "name prefix of the security groups agentless enforcement manages; no other group is changed")
	fs.DurationVar(&f.agentless.Interval, "agentless-resync-interval", time.Minute, "how often every VPC's security groups are synced again, correcting drift")
	cmdutil.Parse(fs, version)
	cmdutil.Run("cloud-controller", func(ctx context.Context) error { return run(ctx, f) })
}

func run(ctx context.Context, f *flags) error {
	cfg, err := f.RESTConfig()
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = float32(f.qps), f.burst
	if f.opts.Provider.RootCAs, err = rootCAs(f.caFile); err != nil {
		return err
	}
	sch, err := scheme.New()
	if err != nil {
		return err
	}
	counter := apiwrites.NewCounter()
	if f.policyServer != "" {
		c, err := consumer.New(consumer.Options{Server: f.policyServer, TokenFile: f.policyTokenFile, CAFile: f.policyCAFile,
			Log: ctrl.Log.WithName("agentless")})
		if err != nil {
			return fmt.Errorf("agentless enforcement: %w", err)
		}
		f.agentless.Consumer, f.agentless.Metrics = c, agentless.NewMetrics()
		f.opts.Agentless = &f.agentless
	}
	if err := registerMetrics(metrics.Registry, counter, f.opts.Agentless); err != nil {
		return err
	}
	opts := f.ManagerOptions(sch)
	opts.NewClient = counter.NewClient
	// The cache holds every imported object: without managedFields it
	// holds them in about half the memory.
	opts.Cache = cache.Options{DefaultTransform: cache.TransformStripManagedFields()}
	opts.LeaderElection, opts.LeaderElectionID, opts.LeaderElectionNamespace = f.leaderElect, "antreaplus-cloud-controller", f.leaderElectionNamespace
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return fmt.Errorf("creating the controller manager: %w", err)
	}
	if err := cloudcontroller.SetupWithManager(ctx, mgr, f.opts); err != nil {
		return err
	}
	if f.externalEntities {
		if err := externalentity.SetupWithManager(mgr, externalentity.Options{AgentlessNode: f.agentlessNode}); err != nil {
			return fmt.Errorf("setting up the ExternalEntity controller: %w", err)
		}
	}
	if err := cmdutil.AddPing(mgr); err != nil {
		return err
	}
	ctrl.Log.Info("Starting the cloud controller", "minPollInterval", f.opts.Sync.MinPollInterval,
		"pollIntervalOverride", f.opts.Sync.PollIntervalOverride, "externalEntities", f.externalEntities,
		"policyServer", f.policyServer)
	return mgr.Start(ctx)
}

// registerMetrics registers on reg the metrics of what the cloud controller
// runs: its API write counter, and agentless enforcement's when it runs
// (sync not nil).
func registerMetrics(reg prometheus.Registerer, writes *apiwrites.Counter, sync *agentless.Options) error {
	if err := apiwrites.RegisterMetrics(reg, writes); err != nil {
		return err
	}
	if sync == nil {
		return nil
	}
	return agentless.RegisterMetrics(reg, sync.Metrics)
}

// rootCAs is the system's CAs plus those of file; nil (the system's) when
// file is empty.
func rootCAs(file string) (*x509.CertPool, error) {
	if file == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading --cloud-ca-file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--cloud-ca-file %s holds no PEM certificate", file)
	}
	return pool, nil
}
