package leadertest

import (
	"context"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"antreaplus.io/antreaplus/pkg/federation/election"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/test/framework"
)

// Supervisor is the clusterID of the supervisor the tests' elections run as.
const Supervisor = "supervisor"

// Cluster connects to a test cluster as a federation manager's session
// connects to a member (manager.MemberClusterOptions: its cache leaves the
// federation's own Services and EndpointSlices to the leader's own cache,
// which Lead runs); started, its caches run until the test ends. An
// unstarted cluster's informers never sync: a member that cannot be read.
func Cluster(t *testing.T, clusters *framework.Clusters, name string, start bool) cluster.Cluster {
	t.Helper()
	c, err := cluster.New(clusters.Config(t, name), manager.MemberClusterOptions)
	if err != nil {
		t.Fatal(err)
	}
	if start {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = c.Start(ctx)
		}()
		t.Cleanup(func() {
			cancel()
			<-done
		})
	}
	return c
}

// Lead runs c as the elected leader of member id (whose cluster is led)
// until the test ends, or until the returned function is called.
func Lead(t *testing.T, c manager.LeaderController, id string, led cluster.Cluster, view manager.FederationView) (stop func()) {
	t.Helper()
	var e *election.Elector
	e = election.New(election.DefaultConfig(), Supervisor, id, &memLeases{}, alone{}, func(ctx context.Context, term int32) {
		own, err := manager.NewOwnCache(ctx, led)
		if err != nil {
			t.Errorf("the cache of the federation's own objects: %v", err)
			return
		}
		ownDone := make(chan struct{})
		go func() {
			defer close(ownDone)
			_ = own.Start(ctx)
		}()
		defer func() { <-ownDone }()
		m := manager.Member{ClusterID: id, Leader: Supervisor, Term: term, Cluster: led, Own: own, Fence: e.Fence(), Federation: view}
		if err := c.Run(ctx, m); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Run(ctx)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
	t.Cleanup(stop)
	return stop
}

// NotLeading is the fence of an election never won: every write is refused.
func NotLeading(id string) election.Fence {
	return election.New(election.DefaultConfig(), Supervisor, id, &memLeases{}, alone{}, func(context.Context, int32) {}).Fence()
}

// memLeases is a leader Lease held in memory.
type memLeases struct {
	mu sync.Mutex
	l  *coordinationv1.Lease
}

var leaseResource = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

func (m *memLeases) Get(context.Context) (*coordinationv1.Lease, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.l == nil {
		return nil, apierrors.NewNotFound(leaseResource, "leader")
	}
	return m.l.DeepCopy(), nil
}

func (m *memLeases) Create(_ context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.l != nil {
		return nil, apierrors.NewAlreadyExists(leaseResource, "leader")
	}
	return m.store(l), nil
}

func (m *memLeases) Update(_ context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.l == nil || l.ResourceVersion != m.l.ResourceVersion {
		return nil, apierrors.NewConflict(leaseResource, "leader", nil)
	}
	return m.store(l), nil
}

func (m *memLeases) store(l *coordinationv1.Lease) *coordinationv1.Lease {
	m.l = l.DeepCopy()
	m.l.ResourceVersion = time.Now().Format(time.RFC3339Nano)
	return m.l.DeepCopy()
}

// alone is the only supervisor.
type alone struct{}

func (alone) Rank(string) (int, string) { return 0, Supervisor }
func (alone) Alive(string) bool         { return true }
