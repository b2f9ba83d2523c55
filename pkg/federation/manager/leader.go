package manager

import (
	"context"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"antreaplus.io/antreaplus/pkg/federation/budget"
	"antreaplus.io/antreaplus/pkg/federation/election"
)

// Member is what a leader controller gets of the member it manages.
type Member struct {
	// ClusterID of the member.
	ClusterID string
	// Leader is the clusterID of this supervisor.
	Leader string
	// Term is the leader Lease's leaseTransitions when leadership began.
	Term int32
	// Cluster gives a client and a cache of the member, with its
	// federation account's rights. Its cache leaves out the federation's
	// own Services and EndpointSlices, and is not to watch ServiceImports
	// or RemoteEntities (owncache.go): they are in Own.
	Cluster cluster.Cluster
	// Own is a cache of the federation's own objects in the member (the
	// derived Services and imported EndpointSlices its leader writes, its
	// ServiceImports and RemoteEntities), started with the leadership;
	// only its kinds are answered. Read it through OwnCache.
	Own cache.Cache
	// Fence must be checked before every write: it turns false as soon as
	// this manager may no longer act as leader.
	Fence election.Fence
	// Federation reads every member this manager is connected to (their
	// exports, for the imports a leader writes).
	Federation FederationView
	// Budget bounds the reconciles this manager runs at once over every
	// member it leads; nil admits every one.
	Budget *budget.Budget
}

// OwnCache is where the federation's own objects in the member are read:
// Own, or, for a Member without one (a test's), the member's cache.
func (m Member) OwnCache() cache.Cache {
	if m.Own != nil {
		return m.Own
	}
	return m.Cluster.GetCache()
}

// Reader reads the member without the cache.
func (m Member) Reader() client.Reader { return m.Cluster.GetAPIReader() }

// LeaderController is a federated-resource controller that runs for each
// member while this manager leads it. Run must return soon after ctx ends.
type LeaderController interface {
	Name() string
	Run(ctx context.Context, m Member) error
}

// lead runs every leader controller until leadership ends. When the
// member's cache is replaced the controllers are restarted on the new one,
// leadership kept.
func (s *session) lead(ctx context.Context, term int32) {
	for ctx.Err() == nil {
		member, swapped := s.currentMember()
		runCtx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-swapped:
				cancel()
			case <-runCtx.Done():
			}
		}()
		if own := runOwnCache(runCtx, member); own != nil {
			s.runLeaderControllers(runCtx, Member{ClusterID: s.clusterID, Leader: s.m.me, Term: term, Cluster: member, Own: own,
				Fence: s.elector.Fence(), Federation: s.m, Budget: s.m.budget})
		}
		cancel()
	}
}

// runLeaderControllers runs every leader controller until ctx ends. One that
// fails is run again after a back-off (1 s, doubling up to 30 s): a member
// whose API server has just come back may not serve every API yet (its
// CRDs' discovery), and a controller left stopped would leave the member
// without its imports for as long as this manager leads it.
func (s *session) runLeaderControllers(ctx context.Context, m Member) {
	var wg sync.WaitGroup
	for _, c := range s.m.opts.LeaderControllers {
		wg.Go(func() {
			for backoff := leaderRestartMin; ; backoff = min(2*backoff, leaderRestartMax) {
				err := c.Run(ctx, m)
				if err == nil || ctx.Err() != nil {
					return
				}
				log.FromContext(ctx).Error(err, "Leader controller stopped; running it again", "controller", c.Name(), "after", backoff)
				select {
				case <-ctx.Done():
					return
				case <-time.After(backoff):
				}
			}
		})
	}
	wg.Wait()
}

// The back-off of a failed leader controller.
const (
	leaderRestartMin = time.Second
	leaderRestartMax = 30 * time.Second
)
