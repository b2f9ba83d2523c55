package sources

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"antreaplus.io/antreaplus/pkg/federation/manager"
)

// stuckCluster is a member's new cache whose GetInformer waits until
// release is closed (a slow member's discovery), then fails; it counts
// the calls. Only GetCache is implemented.
type stuckCluster struct {
	cluster.Cluster
	c *stuckCache
}

func (s stuckCluster) GetCache() cache.Cache { return s.c }

type stuckCache struct {
	cache.Cache
	release chan struct{}
	calls   atomic.Int32
}

func (c *stuckCache) GetInformer(ctx context.Context, _ client.Object, _ ...cache.InformerGetOption) (cache.Informer, error) {
	c.calls.Add(1)
	select {
	case <-c.release:
	case <-ctx.Done():
	}
	return nil, errors.New("no informer: the member did not answer")
}

// TestRefreshDoesNotWaitForANewCache: the hook of a member's new cache
// runs in the background; Refresh returns, the member is Kept, the hook
// is not started twice, and a hook that failed is tried again.
func TestRefreshDoesNotWaitForANewCache(t *testing.T) {
	c := &stuckCache{release: make(chan struct{})}
	mi := manager.MemberInfo{ClusterID: "member-2", Cluster: stuckCluster{c: c}, Reachable: true}
	tr := New(manager.Member{ClusterID: "member-1", Federation: view{mi}},
		Options{Kinds: []client.Object{&corev1.Service{}}, UnreachableHoldDown: 5 * time.Second,
			Handler: func(context.Context, string, cluster.Cluster, client.Object) toolscache.ResourceEventHandler {
				return toolscache.ResourceEventHandlerFuncs{}
			}}, logr.Discard())
	defer tr.Close()
	ctx := t.Context()

	done := make(chan struct{})
	go func() {
		defer close(done)
		tr.Refresh(ctx)
		tr.Refresh(ctx)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Refresh waited for the member's new cache")
	}
	if got := tr.State(mi); got != Kept {
		t.Errorf("state while the cache is hooked: %s, want %s", got, Kept)
	}
	waitFor(t, "the hook to start", func() bool { return c.calls.Load() == 1 })
	if n := c.calls.Load(); n != 1 {
		t.Errorf("%d hooks of the same cache at once, want 1", n)
	}

	// The member answers (with an error): the next Refresh tries again.
	close(c.release)
	waitFor(t, "the hook to be tried again", func() bool {
		tr.Refresh(ctx)
		return c.calls.Load() >= 2
	})
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("waited 10 s for %s", what)
		}
	}
}
