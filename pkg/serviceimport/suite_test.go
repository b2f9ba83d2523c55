package serviceimport

import (
	"context"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/log"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/election"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/scheme"
	"antreaplus.io/antreaplus/test/framework"
)

// The controller runs here against two real clusters, with a federation
// view, a registry and an election the tests control.

var clusters *framework.Clusters

func TestMain(m *testing.M) {
	log.SetLogger(klog.Background())
	framework.Main(m, 2, &clusters)
}

// fakeView is a FederationView whose members the test sets.
type fakeView struct {
	mu      sync.Mutex
	members map[string]manager.MemberInfo
}

func (v *fakeView) Members() []manager.MemberInfo {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []manager.MemberInfo
	for _, id := range sortedKeys(v.members) {
		out = append(out, v.members[id])
	}
	return out
}

func (v *fakeView) set(mi manager.MemberInfo) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.members[mi.ClusterID] = mi
}

func (v *fakeView) remove(id string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.members, id)
}

// fakeRegistry answers whether a MemberCluster exists.
type fakeRegistry struct {
	client.Reader
	mu      sync.Mutex
	present map[string]bool
}

func (r *fakeRegistry) Get(_ context.Context, key client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.present[key.Name] {
		return apierrors.NewNotFound(schema.GroupResource{Group: federationv1alpha1.GroupVersion.Group, Resource: "memberclusters"}, key.Name)
	}
	return nil
}

func (r *fakeRegistry) setPresent(id string, present bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.present[id] = present
}

// memLeases is a leader Lease held in memory.
type memLeases struct {
	mu sync.Mutex
	l  *coordinationv1.Lease
	rv int
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
	m.rv++
	m.l = l.DeepCopy()
	m.l.ResourceVersion = time.Now().Format(time.RFC3339Nano)
	return m.l.DeepCopy()
}

// alone is the only supervisor.
type alone struct{}

func (alone) Rank(string) (int, string) { return 0, "supervisor" }
func (alone) Alive(string) bool         { return true }

// newCluster connects to a test cluster; started, its caches run until the test ends.
func newCluster(t *testing.T, name string, start bool) cluster.Cluster {
	t.Helper()
	s, err := scheme.New()
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.New(clusters.Config(t, name), func(o *cluster.Options) { o.Scheme = s })
	if err != nil {
		t.Fatal(err)
	}
	if start {
		ctx, cancel := context.WithCancel(context.Background())
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

// lead runs the controller as the elected leader of member led until the test ends.
func lead(t *testing.T, c *Controller, id string, led cluster.Cluster, view manager.FederationView) {
	t.Helper()
	var e *election.Elector
	cfg := election.DefaultConfig()
	e = election.New(cfg, "supervisor", id, &memLeases{}, alone{}, func(ctx context.Context, term int32) {
		m := manager.Member{ClusterID: id, Leader: "supervisor", Term: term, Cluster: led, Fence: e.Fence(), Federation: view}
		if err := c.Run(ctx, m); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}
