package entityimport

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/leadertest"
)

// recordingCluster is a member's cluster whose cache records the kinds it
// is asked for.
type recordingCluster struct {
	cluster.Cluster
	cache *recordingCache
}

func (c recordingCluster) GetCache() cache.Cache { return c.cache }

type recordingCache struct {
	cache.Cache
	mu    sync.Mutex
	kinds map[string]bool
}

func (c *recordingCache) note(o any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.kinds[fmt.Sprintf("%T", o)] = true
}

func (c *recordingCache) asked() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.kinds))
	for k := range c.kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (c *recordingCache) Get(ctx context.Context, key client.ObjectKey, o client.Object, opts ...client.GetOption) error {
	c.note(o)
	return c.Cache.Get(ctx, key, o, opts...)
}

func (c *recordingCache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	c.note(list)
	return c.Cache.List(ctx, list, opts...)
}

func (c *recordingCache) GetInformer(ctx context.Context, o client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	c.note(o)
	return c.Cache.GetInformer(ctx, o, opts...)
}

func (c *recordingCache) GetInformerForKind(ctx context.Context, gvk schema.GroupVersionKind, opts ...cache.InformerGetOption) (cache.Informer, error) {
	c.note(gvk.Kind)
	return c.Cache.GetInformerForKind(ctx, gvk, opts...)
}

// TestRemoteEntitiesInTheLeadersCacheAlone: the led member's RemoteEntities
// are read from the cache of the federation's own objects, which runs
// while its leader leads, never from the member's cache (which every
// supervisor holds for as long as the member is in the federation: an
// informer started there stayed after the leadership moved on). A
// RemoteEntity someone deletes is written again from the own cache's
// events, not at the next resync.
func TestRemoteEntitiesInTheLeadersCacheAlone(t *testing.T) {
	a, b := clusters.Client(t, "member-1"), clusters.Client(t, "member-2")
	ns := sharedNamespace(t, "owncache", "member-1", "member-2")
	createEntity(t, a, ns, "nic-a", web, "10.0.3.1")
	createExport(t, a, ns, "all", nil)

	_, cb, view, registry := setup(t)
	rec := &recordingCache{Cache: cb.GetCache(), kinds: map[string]bool{}}
	c := New(registry, federationv1alpha1.SystemNamespace)
	c.Resync = time.Hour
	leadertest.Lead(t, c, "member-2", recordingCluster{Cluster: cb, cache: rec}, view)
	waitRemote(t, b, ns, "member-1.nic-a=10.0.3.1")

	imported := &federationv1alpha1.RemoteEntity{}
	if err := b.Get(bg, client.ObjectKey{Namespace: ns, Name: "member-1.nic-a"}, imported); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(bg, imported); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 15*time.Second, func() error {
		again := &federationv1alpha1.RemoteEntity{}
		if err := b.Get(bg, client.ObjectKeyFromObject(imported), again); err != nil {
			return fmt.Errorf("not written again yet: %w", err)
		}
		if again.UID == imported.UID {
			return fmt.Errorf("not deleted yet")
		}
		return nil
	})

	for _, k := range rec.asked() {
		switch k {
		case "*v1alpha1.RemoteEntity", "*v1alpha1.RemoteEntityList", "RemoteEntity", "RemoteEntityList":
			t.Errorf("the member's cache was asked for %s; want the led member's RemoteEntities read from the own cache alone (asked: %v)", k, rec.asked())
		}
	}
	if len(rec.asked()) == 0 {
		t.Errorf("the member's cache was asked for nothing: the recording does not see the controller's reads")
	}
}
