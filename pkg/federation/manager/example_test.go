package manager_test

import (
	"context"
	"time"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/federation/membershipstatus"
)

// The federation manager of supervisor-1, in a controller-runtime manager
// of the supervisor cluster (cfg), running a leader controller in every
// member it leads. cmd/federation-manager adds the importing controllers
// (packages serviceimport and entityimport) the same way.
func ExampleManager() {
	run := func(ctx context.Context, cfg *rest.Config) error {
		sch, err := scheme.New()
		if err != nil {
			return err
		}
		mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: sch})
		if err != nil {
			return err
		}
		opts := manager.DefaultOptions()
		opts.LeaderControllers = append(opts.LeaderControllers, membershipstatus.New(30*time.Second))
		if err := manager.New(opts, "supervisor-1", mgr.GetClient(), cfg).SetupWithManager(mgr); err != nil {
			return err
		}
		return mgr.Start(ctx)
	}
	_ = run
}

// logLeadership is a leader controller: the manager runs it for each
// member while it leads it, with the member's cluster and the election's
// fence.
type logLeadership struct{}

func (logLeadership) Name() string { return "log-leadership" }

func (logLeadership) Run(ctx context.Context, m manager.Member) error {
	log := ctrl.LoggerFrom(ctx).WithValues("member", m.ClusterID, "term", m.Term)
	log.Info("Leading")
	for _, other := range m.Federation.Members() {
		log.Info("Federation member", "clusterID", other.ClusterID, "reachable", other.Reachable)
	}
	if _, ok := m.Fence.Check(); !ok {
		return nil // no longer the leader: write nothing
	}
	<-ctx.Done() // leadership ended
	return nil
}

// A leader controller of one's own, added to the manager's options.
func ExampleLeaderController() {
	opts := manager.DefaultOptions()
	opts.LeaderControllers = append(opts.LeaderControllers, logLeadership{})
	_ = opts
}
