// Command member-controller runs in every member cluster of an AntreaPlus
// federation, with the member's own credentials. It keeps the Valid and
// Ready conditions of the member's ServiceExports true to KEP-1645 (package
// exportstatus); the member's leader writes their Conflict condition. It
// translates the member's FederatedNetworkPolicies into Antrea
// NetworkPolicies and Groups (package federatedpolicy).
package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"

	ctrl "sigs.k8s.io/controller-runtime"

	"antreaplus.io/antreaplus/pkg/cmdutil"
	entityexportstatus "antreaplus.io/antreaplus/pkg/entityexport/exportstatus"
	"antreaplus.io/antreaplus/pkg/federatedpolicy"
	"antreaplus.io/antreaplus/pkg/federation/names"
	"antreaplus.io/antreaplus/pkg/outage"
	"antreaplus.io/antreaplus/pkg/scheme"
	"antreaplus.io/antreaplus/pkg/serviceexport/exportstatus"
)

type flags struct {
	cmdutil.Common
	leaderElect bool
}

func main() {
	f := &flags{}
	fs := cmdutil.NewFlagSet()
	f.AddFlags(fs, "this member cluster")
	fs.BoolVar(&f.leaderElect, "leader-elect", false, "elect one active replica through a Lease in "+names.Namespace+" (when several replicas run)")
	cmdutil.Parse(fs)
	cmdutil.Run("member-controller", func(ctx context.Context) error { return run(ctx, f) })
}

func run(ctx context.Context, f *flags) error {
	cfg, err := f.RESTConfig()
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 100, 200
	sch, err := scheme.New()
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	// The controllers' informers are replaced when the API server comes back
	// after an outage (package outage): the metrics read the current cache.
	reader := &currentReader{}
	exportstatus.RegisterMetrics(reader)
	federatedpolicy.RegisterMetrics(reader)
	entityexportstatus.RegisterMetrics(reader)
	ctrl.Log.Info("Starting the member controller", "server", cfg.Host)
	for {
		mctx, cancel := context.WithCancel(ctx)
		var restart atomic.Bool
		go func() {
			if _, ok := outage.WaitForRecovery(mctx, outage.Readyz(cs.Discovery().RESTClient())); ok {
				restart.Store(true)
				cancel()
			}
		}()
		err := runManager(mctx, cfg, f, sch, reader)
		cancel()
		if ctx.Err() != nil || !restart.Load() {
			return err
		}
		ctrl.Log.Info("The API server answers again after an outage: restarting the controllers with fresh informers")
	}
}

// runManager runs the controllers until ctx ends.
func runManager(ctx context.Context, cfg *rest.Config, f *flags, sch *runtime.Scheme, reader *currentReader) error {
	opts := f.ManagerOptions(sch)
	opts.LeaderElection, opts.LeaderElectionID, opts.LeaderElectionNamespace = f.leaderElect, "antreaplus-member-controller", names.Namespace
	// A manager replaced after an outage registers the same controller again.
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
	reader.set(mgr.GetCache())
	if err := cmdutil.AddPing(mgr); err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// currentReader reads through the current manager's cache.
type currentReader struct {
	mu sync.Mutex
	r  client.Reader
}

func (c *currentReader) set(r client.Reader) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.r = r
}

func (c *currentReader) get() (client.Reader, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.r == nil {
		return nil, errors.New("the member controller has not started its cache yet")
	}
	return c.r, nil
}

func (c *currentReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r, err := c.get()
	if err != nil {
		return err
	}
	return r.Get(ctx, key, obj, opts...)
}

func (c *currentReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	r, err := c.get()
	if err != nil {
		return err
	}
	return r.List(ctx, list, opts...)
}
