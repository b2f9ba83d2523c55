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
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/internal/cmdutil"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/cloudcontroller"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/agentless"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/apiwrites"
	"antreaplus.io/antreaplus/pkg/externalentity"
	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/tenancy"
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
	tenantSelector          string
	tenancy                 tenancy.Options
	noTenancy               bool
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
	fs.StringVar(&f.tenantSelector, "tenant-selector", "", "label selector over Namespaces: the tenants this controller instance manages (default all)")
	fs.StringVar(&f.tenancy.Instance, "tenancy-instance", tenancy.DefaultInstance, "name of this controller instance: its replicas share its tenants; another instance never manages them")
	fs.StringVar(&f.tenancy.Replica, "tenancy-replica", defaultReplica(), "name of this replica among the instance's (default $POD_NAME, else the host name)")
	fs.StringVar(&f.tenancy.Namespace, "tenancy-namespace", "antreaplus-system", "namespace of the tenants' claim Leases and the replicas' heartbeats")
	fs.DurationVar(&f.tenancy.LeaseDuration, "tenancy-lease-duration", 15*time.Second, "how long a tenant's claim lasts unrenewed: the take-over time after a replica dies")
	fs.DurationVar(&f.tenancy.RenewPeriod, "tenancy-renew-period", 5*time.Second, "how often a replica renews its claims")
	fs.BoolVar(&f.noTenancy, "no-tenancy", false, "manage every namespace without claiming it (one controller per cluster only; for tests of other parts)")
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
	eeOpts := externalentity.Options{AgentlessNode: f.agentlessNode}
	f.opts.Provider.UserAgent = "antreaplus-replica/" + f.tenancy.Replica
	if !f.noTenancy {
		owner, err := newOwner(mgr, f)
		if err != nil {
			return err
		}
		f.opts.Tenants, eeOpts.Tenants = owner, owner
		if f.opts.Agentless != nil {
			f.opts.Agentless.Reporter = owner.Identity()
		}
	}
	if err := cloudcontroller.SetupWithManager(ctx, mgr, f.opts); err != nil {
		return err
	}
	if f.externalEntities {
		if err := externalentity.SetupWithManager(mgr, eeOpts); err != nil {
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

// newOwner builds the replica's tenancy and adds it to mgr: it claims the
// Namespaces the selector picks that hold a CloudProviderAccount.
func newOwner(mgr ctrl.Manager, f *flags) (*tenancy.Owner, error) {
	sel, err := labels.Parse(f.tenantSelector)
	if err != nil {
		return nil, fmt.Errorf("--tenant-selector %q: %w", f.tenantSelector, err)
	}
	o := f.tenancy
	o.Client, o.Reader, o.Namespaces, o.Selector = mgr.GetClient(), mgr.GetAPIReader(), mgr.GetClient(), sel
	o.Recorder, o.Log = mgr.GetEventRecorderFor("cloud-controller"), ctrl.Log.WithName("tenancy")
	o.Candidates = func(ctx context.Context) ([]string, error) {
		var list cloudv1alpha1.CloudProviderAccountList
		if err := mgr.GetClient().List(ctx, &list); err != nil {
			return nil, err
		}
		out := make([]string, 0, len(list.Items))
		for _, a := range list.Items {
			out = append(out, a.Namespace)
		}
		return out, nil
	}
	owner, err := tenancy.New(o)
	if err != nil {
		return nil, err
	}
	if err := mgr.Add(owner); err != nil {
		return nil, fmt.Errorf("adding the tenancy claims: %w", err)
	}
	return owner, nil
}

// defaultReplica is the Pod's name ($POD_NAME, else $HOSTNAME, which
// the kubelet sets to it), else the host's.
func defaultReplica() string {
	for _, env := range []string{"POD_NAME", "HOSTNAME"} {
		if p := os.Getenv(env); p != "" {
			return p
		}
	}
	h, _ := os.Hostname()
	return h
}

// registerMetrics registers on reg the metrics of what the cloud controller
// runs: its API write counter, and agentless enforcement's when it runs
// (sync not nil).
func registerMetrics(reg prometheus.Registerer, writes *apiwrites.Counter, sync *agentless.Options) error {
	if err := apiwrites.RegisterMetrics(reg, writes); err != nil {
		return err
	}
	if err := tenancy.RegisterMetrics(reg); err != nil {
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
