package membercontroller

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/cmdutil"
	"antreaplus.io/antreaplus/internal/outage"
	"antreaplus.io/antreaplus/internal/scheme"
	entityexportstatus "antreaplus.io/antreaplus/pkg/entityexport/exportstatus"
	"antreaplus.io/antreaplus/pkg/federatedpolicy"
	"antreaplus.io/antreaplus/pkg/networks/networkstatus"
	"antreaplus.io/antreaplus/pkg/serviceexport/exportstatus"
)

// The member controller's leader election (--leader-elect): its Lease and
// the events it records (chart: files/rbac/member-controller.yaml).
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=create,namespace=antreaplus-system
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,resourceNames=antreaplus-member-controller,verbs=get;update,namespace=antreaplus-system
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch,namespace=antreaplus-system

// Component names the member controller in logs and in
// antreaplus_outage_renewals_total.
const Component = "member-controller"

// Options configure the member controller.
type Options struct {
	// LeaderElect elects one active replica through a Lease in
	// federationv1alpha1.SystemNamespace, for when several replicas run.
	LeaderElect bool
	// MetricsAddr, ProbeAddr and PprofAddr are the addresses of the
	// Prometheus metrics, /healthz and /readyz, and /debug/pprof endpoints;
	// "" or "0" turns one off.
	MetricsAddr, ProbeAddr, PprofAddr string
}

// Run runs the member's controllers against the API server of cfg until
// ctx ends, with fresh informers after every outage of that server.
func Run(ctx context.Context, cfg *rest.Config, opts Options) error {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 100, 200
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating the Kubernetes client: %w", err)
	}
	log := ctrl.Log.WithName(Component)
	log.Info("Starting the member controller", "server", cfg.Host)
	r := outage.Renewer{Component: Component, Probe: outage.Readyz(cs.Discovery().RESTClient()), Log: log}
	return r.Run(ctx, func(ctx context.Context, _ outage.Generation) error {
		return runManager(ctx, cfg, opts)
	})
}

// runManager runs the controllers in a new manager until ctx ends.
func runManager(ctx context.Context, cfg *rest.Config, o Options) error {
	sch, err := scheme.New()
	if err != nil {
		return err
	}
	endpoints := cmdutil.Common{MetricsAddr: off(o.MetricsAddr), ProbeAddr: off(o.ProbeAddr), PprofAddr: off(o.PprofAddr)}
	opts := endpoints.ManagerOptions(sch)
	opts.LeaderElection, opts.LeaderElectionID, opts.LeaderElectionNamespace = o.LeaderElect, "antreaplus-member-controller", federationv1alpha1.SystemNamespace
	// A manager replaced after an outage registers the same controllers again.
	opts.Controller = config.Controller{SkipNameValidation: ptr.To(true)}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return fmt.Errorf("creating the controller manager: %w", err)
	}
	if err := (&exportstatus.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the ServiceExport status controller: %w", err)
	}
	if err := (&entityexportstatus.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the EntityExport status controller: %w", err)
	}
	if err := federatedpolicy.Setup(ctx, mgr); err != nil {
		return fmt.Errorf("setting up the FederatedNetworkPolicy controller: %w", err)
	}
	if err := (&networkstatus.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the Network status controller: %w", err)
	}
	if err := cmdutil.AddPing(mgr); err != nil {
		return err
	}
	current.set(mgr.GetCache())
	return mgr.Start(ctx)
}

// off is "0" (off, for controller-runtime) for an empty address.
func off(addr string) string {
	if addr == "" {
		return "0"
	}
	return addr
}
