// Command federation-manager runs in every supervisor cluster of an
// AntreaPlus federation: it takes part, for every member, in the election of
// the member's leader, and runs the member's federated-resource controllers
// while it leads it.
package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/cmdutil"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/entityimport"
	"antreaplus.io/antreaplus/pkg/federation/dnsendpoints"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/federation/membershipstatus"
	"antreaplus.io/antreaplus/pkg/federation/tenantoverlaps"
	"antreaplus.io/antreaplus/pkg/serviceimport"
)

// version is set at build time with -ldflags "-X main.version=..."; --version
// prints it.
var version = "v0.1.0-dev"

type flags struct {
	cmdutil.Common
	opts manager.Options
}

func main() {
	f := &flags{opts: manager.DefaultOptions()}
	fs := cmdutil.NewFlagSet()
	f.AddFlags(fs, "this supervisor cluster")
	fs.StringVar(&f.opts.Namespace, "namespace", f.opts.Namespace, "namespace of the registry")
	fs.DurationVar(&f.opts.Election.LeaseDuration, "lease-duration", f.opts.Election.LeaseDuration, "how long others wait after a member's Lease last changed before taking it")
	fs.DurationVar(&f.opts.Election.RenewDeadline, "renew-deadline", f.opts.Election.RenewDeadline, "how long a leader acts without renewing; must be below --lease-duration")
	fs.DurationVar(&f.opts.Election.RetryPeriod, "retry-period", f.opts.Election.RetryPeriod, "interval between election rounds")
	fs.DurationVar(&f.opts.Election.RenewPeriod, "renew-period", f.opts.Election.RenewPeriod, "how often a leader renews a member's Lease, and the manager its heartbeat, while renewals are quick (slow ones: every round); must be below --renew-deadline")
	fs.DurationVar(&f.opts.Election.HandoverHoldDown, "handover-hold-down", f.opts.Election.HandoverHoldDown, "how long a returning supervisor waits before taking back its members")
	fs.DurationVar(&f.opts.UnreachableGrace, "unreachable-grace", f.opts.UnreachableGrace, "how long no supervisor may reach a member before it is marked unreachable")
	fs.DurationVar(&f.opts.StatusPeriod, "status-period", f.opts.StatusPeriod, "how often the registry status is refreshed")
	fs.IntVar(&f.opts.Budget.Limit, "max-reconciles", f.opts.Budget.Limit, "reconciles run at once over every member this supervisor leads; 0: no limit (docs/scale.md: measured, a limit did not keep leaders and slowed imports)")
	fs.IntVar(&f.opts.Budget.Floor, "reconciles-while-renewal-late", f.opts.Budget.Floor, "reconciles run at once while a Lease renewal has been in flight half a retry period or more")
	cmdutil.Parse(fs, version)
	cmdutil.Run("federation-manager", func(ctx context.Context) error { return run(ctx, f) })
}

func run(ctx context.Context, f *flags) error {
	if err := f.opts.Election.Validate(); err != nil {
		return fmt.Errorf("the election's timings (--lease-duration, --renew-deadline, --renew-period, --retry-period): %w", err)
	}
	if f.opts.Budget.Limit < 0 || f.opts.Budget.Floor < 1 {
		return fmt.Errorf("--max-reconciles must be 0 (no limit) or more, and --reconciles-while-renewal-late 1 or more: got %d and %d",
			f.opts.Budget.Limit, f.opts.Budget.Floor)
	}
	cfg, err := f.RESTConfig()
	if err != nil {
		return err
	}
	sch, err := scheme.New()
	if err != nil {
		return err
	}
	me, err := waitForIdentity(ctx, cfg, sch)
	if err != nil {
		return err
	}
	log := ctrl.Log.WithValues("supervisor", me)
	log.Info("Starting the federation manager", "leaseDuration", f.opts.Election.LeaseDuration,
		"renewDeadline", f.opts.Election.RenewDeadline, "retryPeriod", f.opts.Election.RetryPeriod, "renewPeriod", f.opts.Election.RenewPeriod, "unreachableGrace", f.opts.UnreachableGrace,
		"maxReconciles", f.opts.Budget.Limit, "reconcilesWhileRenewalLate", f.opts.Budget.Floor)

	opts := f.ManagerOptions(sch)
	opts.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{f.opts.Namespace: {}}}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return fmt.Errorf("creating the controller manager: %w", err)
	}
	if err := registerMetrics(metrics.Registry); err != nil {
		return err
	}
	f.opts.LeaderControllers = append(f.opts.LeaderControllers, membershipstatus.New(30*time.Second))
	f.opts.LeaderControllers = append(f.opts.LeaderControllers, serviceimport.New(mgr.GetAPIReader(), f.opts.Namespace))
	f.opts.LeaderControllers = append(f.opts.LeaderControllers, entityimport.New(mgr.GetAPIReader(), f.opts.Namespace))
	f.opts.LeaderControllers = append(f.opts.LeaderControllers, tenantoverlaps.New(mgr.GetAPIReader(), f.opts.Namespace))
	f.opts.LeaderControllers = append(f.opts.LeaderControllers, dnsendpoints.New(mgr.GetAPIReader(), f.opts.Namespace))
	if err := manager.New(f.opts, me, mgr.GetClient(), cfg).SetupWithManager(mgr); err != nil {
		return err
	}
	if err := cmdutil.AddPing(mgr); err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// registerMetrics registers on reg the metrics of what the federation
// manager runs: the manager (with its election and outage renewals) and the
// leader controllers.
func registerMetrics(reg prometheus.Registerer) error {
	return errors.Join(manager.RegisterMetrics(reg), membershipstatus.RegisterMetrics(reg),
		serviceimport.RegisterMetrics(reg), entityimport.RegisterMetrics(reg), tenantoverlaps.RegisterMetrics(reg),
		dnsendpoints.RegisterMetrics(reg))
}

// The federation manager's rights in its supervisor (chart: files/rbac/federation-manager.yaml):
// its identity.
// +kubebuilder:rbac:groups=federation.antreaplus.io,resources=clustermemberships,resourceNames=cluster.clusterset.k8s.io,verbs=get

// waitForIdentity reads this cluster's ClusterMembership until it says the
// cluster is a supervisor, logging what is missing meanwhile.
func waitForIdentity(ctx context.Context, cfg *rest.Config, sch *runtime.Scheme) (string, error) {
	c, err := client.New(cfg, client.Options{Scheme: sch})
	if err != nil {
		return "", err
	}
	for {
		cm := &federationv1alpha1.ClusterMembership{}
		err := c.Get(ctx, client.ObjectKey{Name: federationv1alpha1.MembershipName}, cm)
		switch {
		case err == nil && cm.Spec.Supervisor:
			return cm.Spec.ClusterID, nil
		case err == nil:
			err = errors.New("this cluster is a member but not a supervisor: make it one with 'antreaplus federation create'")
		default:
			err = fmt.Errorf("reading ClusterMembership %s: %w (is this cluster part of a federation? see 'antreaplus federation create')", federationv1alpha1.MembershipName, err)
		}
		ctrl.Log.Info("Waiting to become a supervisor", "reason", err.Error())
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(5 * time.Second):
		}
	}
}
