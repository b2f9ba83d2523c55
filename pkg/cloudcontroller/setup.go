package cloudcontroller

import (
	"context"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"antreaplus.io/antreaplus/pkg/cloudcontroller/account"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/accountprovider"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/agentless"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/binding"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/inventorysync"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/pollstatus"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/selector"
	"antreaplus.io/antreaplus/pkg/tenancy"
)

// Options configure the cloud controller.
type Options struct {
	// Provider tunes the providers built for accounts.
	Provider accountprovider.Options
	// Sync tunes the poll loop.
	Sync inventorysync.Options
	// Heartbeat is how stale an account's lastSuccessfulPollTime may get
	// before it is written on its own; default 10m.
	Heartbeat time.Duration
	// Agentless, when set, enforces the rules of agentless VMs with
	// security groups; its Reader, Providers and Log are filled in.
	Agentless *agentless.Options
	// Tenants, when set, is the replica's tenancy (a tenancy.Owner added
	// to the manager by the caller): only the tenants it owns are polled,
	// written and enforced.
	Tenants tenancy.Source
}

// SetupWithManager registers the account, selector and inventory
// reconcilers, and the indexes they need, with mgr; and the agentless
// syncer when opts.Agentless is set.
func SetupWithManager(ctx context.Context, mgr ctrl.Manager, opts Options) error {
	if opts.Heartbeat == 0 {
		opts.Heartbeat = 10 * time.Minute
	}
	if err := binding.AddIndex(ctx, mgr.GetFieldIndexer()); err != nil {
		return fmt.Errorf("indexing selectors by account: %w", err)
	}
	if err := account.AddIndex(ctx, mgr.GetFieldIndexer()); err != nil {
		return fmt.Errorf("indexing accounts by Secret: %w", err)
	}
	providers := accountprovider.NewSet()
	store := pollstatus.New(opts.Heartbeat)
	accounts := &account.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Providers: providers, Status: store,
		ProviderOptions: opts.Provider, Heartbeat: opts.Heartbeat,
		Recorder: mgr.GetEventRecorderFor("cloud-controller"), Tenants: opts.Tenants,
	}
	if err := accounts.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the account reconciler: %w", err)
	}
	if err := (&selector.Reconciler{Client: mgr.GetClient(), Status: store}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the selector reconciler: %w", err)
	}
	sync := &inventorysync.Reconciler{Client: mgr.GetClient(), Providers: providers, Status: store, Options: opts.Sync}
	if opts.Tenants != nil {
		sync.Tenants = opts.Tenants
	}
	if err := sync.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the inventory sync: %w", err)
	}
	if opts.Agentless != nil {
		o := *opts.Agentless
		o.Reader, o.Providers, o.Log = mgr.GetClient(), providers, mgr.GetLogger().WithName("agentless")
		if opts.Tenants != nil {
			o.Tenants = opts.Tenants
		}
		if err := mgr.Add(agentless.New(o)); err != nil {
			return fmt.Errorf("setting up the agentless syncer: %w", err)
		}
	}
	return nil
}
