package sources

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/manager"
)

// versioned is a federation view whose every change moves its version.
type versioned struct {
	mu      sync.Mutex
	members []manager.MemberInfo
	version uint64
}

func (v *versioned) Members() []manager.MemberInfo {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]manager.MemberInfo(nil), v.members...)
}

func (v *versioned) Version() uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.version
}

func (v *versioned) set(i int, change func(*manager.MemberInfo)) {
	v.mu.Lock()
	defer v.mu.Unlock()
	change(&v.members[i])
	v.version++
}

// syncedCluster is a member whose informers are synced at once; it keeps
// the handlers added to them, by kind, so that a test can send events.
type syncedCluster struct {
	cluster.Cluster
	c *syncedCache
}

func (s syncedCluster) GetCache() cache.Cache { return s.c }

type syncedCache struct {
	cache.Cache
	mu       sync.Mutex
	handlers map[string][]toolscache.ResourceEventHandler
}

func (c *syncedCache) GetInformer(_ context.Context, obj client.Object, _ ...cache.InformerGetOption) (cache.Informer, error) {
	return &syncedInformer{c: c, kind: kindOf(obj)}, nil
}

func (c *syncedCache) send(kind string, obj client.Object) {
	c.mu.Lock()
	hs := append([]toolscache.ResourceEventHandler(nil), c.handlers[kind]...)
	c.mu.Unlock()
	for _, h := range hs {
		h.OnAdd(obj, false)
	}
}

func kindOf(obj client.Object) string {
	switch obj.(type) {
	case *federationv1alpha1.ClusterMembership:
		return "ClusterMembership"
	default:
		return "other"
	}
}

type syncedInformer struct {
	cache.Informer
	c    *syncedCache
	kind string
}

func (i *syncedInformer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	i.c.mu.Lock()
	defer i.c.mu.Unlock()
	i.c.handlers[i.kind] = append(i.c.handlers[i.kind], h)
	return nil, nil
}

func (i *syncedInformer) RemoveEventHandler(toolscache.ResourceEventHandlerRegistration) error {
	return nil
}
func (i *syncedInformer) HasSynced() bool { return true }

// TestRefreshIsQuiet: once every member is hooked and synced, Refresh
// returns at once (no look at the members) until the federation view
// changes, an event changes what a member refuses, or a member marked
// unreachable ends its hold-down; each of those is looked at, and seen.
func TestRefreshIsQuiet(t *testing.T) {
	ctx := t.Context()
	c := &clock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	led := syncedCluster{c: &syncedCache{handlers: map[string][]toolscache.ResourceEventHandler{}}}
	other := syncedCluster{c: &syncedCache{handlers: map[string][]toolscache.ResourceEventHandler{}}}
	v := &versioned{members: []manager.MemberInfo{
		{ClusterID: "member-1", Cluster: led, Reachable: true},
		{ClusterID: "member-2", Cluster: other, Reachable: true, Labels: map[string]string{"region": "eu"}},
	}}
	tr := New(manager.Member{ClusterID: "member-1", Cluster: led, Federation: v},
		Options{Kinds: []client.Object{&corev1.Service{}}, ReadLed: true, UnreachableHoldDown: 5 * time.Second,
			Handler: func(context.Context, string, cluster.Cluster, client.Object) toolscache.ResourceEventHandler {
				return toolscache.ResourceEventHandlerFuncs{}
			}}, logr.Discard())
	tr.now = c.now
	defer tr.Close()

	live := func() bool {
		for _, mi := range v.Members() {
			if tr.State(mi) != Live {
				return false
			}
		}
		return true
	}
	waitFor(t, "every member hooked and live", func() bool { tr.Refresh(ctx); return live() })
	tr.Refresh(ctx) // the look after the last hook
	looked, quiet := tr.Looks()
	for range 10 {
		if tr.Refresh(ctx) {
			t.Fatal("a quiet Refresh reported a change")
		}
	}
	if l, q := tr.Looks(); l != looked || q != quiet+10 {
		t.Fatalf("nothing changed: %d looks and %d quiet calls, want %d and %d", l-looked, q-quiet, 0, 10)
	}

	steps := []struct {
		name   string
		change func()
		// changed is what the first Refresh after the change says.
		changed bool
	}{
		{name: "a label of the registry", changed: true, change: func() {
			v.set(1, func(mi *manager.MemberInfo) { mi.Labels = map[string]string{"region": "us"} })
		}},
		{name: "a refusal", changed: true, change: func() {
			cm := &federationv1alpha1.ClusterMembership{Spec: federationv1alpha1.ClusterMembershipSpec{
				Imports: &federationv1alpha1.ImportsSpec{RefuseFrom: []string{"member-1"}}}}
			cm.Name = federationv1alpha1.MembershipName
			other.c.send("ClusterMembership", cm)
		}},
		{name: "marked unreachable: looked at, still live", changed: false, change: func() {
			since := c.t
			v.set(1, func(mi *manager.MemberInfo) { mi.UnreachableSince = &since })
		}},
		{name: "within the hold-down: quiet", change: func() { c.t = c.t.Add(4 * time.Second) }},
		{name: "the hold-down ends: withdrawn", changed: true, change: func() { c.t = c.t.Add(time.Second) }},
	}
	for _, s := range steps {
		looked, _ := tr.Looks()
		s.change()
		if got := tr.Refresh(ctx); got != s.changed {
			t.Errorf("%s: Refresh says changed=%t, want %t", s.name, got, s.changed)
		}
		l, _ := tr.Looks()
		if wantLook := s.name != "within the hold-down: quiet"; (l > looked) != wantLook {
			t.Errorf("%s: looked %t, want %t", s.name, l > looked, wantLook)
		}
		// And quiet again after the look.
		if l, q := tr.Looks(); tr.Refresh(ctx) || func() bool { l2, q2 := tr.Looks(); return l2 != l || q2 != q+1 }() {
			t.Errorf("%s: the next Refresh was not quiet", s.name)
		}
	}
	if got := tr.State(v.Members()[1]); got != Withdrawn {
		t.Errorf("member-2 is %s after its hold-down, want %s", got, Withdrawn)
	}
}

// BenchmarkRefresh is one Refresh of a tracker following 30 synced
// members: quiet (nothing changed), and looking (the view's version moved,
// nothing else: what every Refresh did before quiet existed).
func BenchmarkRefresh(b *testing.B) {
	ctx := b.Context()
	v := &versioned{}
	for i := range 30 {
		cl := syncedCluster{c: &syncedCache{handlers: map[string][]toolscache.ResourceEventHandler{}}}
		v.members = append(v.members, manager.MemberInfo{ClusterID: "member-" + string(rune('a'+i)), Cluster: cl, Reachable: true,
			Labels: map[string]string{"region": "eu", "zone": "eu-1"}})
	}
	tr := New(manager.Member{ClusterID: v.members[0].ClusterID, Cluster: v.members[0].Cluster, Federation: v},
		Options{Kinds: ServiceKinds(), ReadLed: true, UnreachableHoldDown: 5 * time.Second,
			Handler: func(context.Context, string, cluster.Cluster, client.Object) toolscache.ResourceEventHandler {
				return toolscache.ResourceEventHandlerFuncs{}
			}}, logr.Discard())
	defer tr.Close()
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		tr.Refresh(ctx)
		if l, q := tr.Looks(); q > 0 {
			break
		} else if time.Now().After(end) {
			b.Fatalf("not quiet after %d looks", l)
		}
	}
	b.Run("quiet", func(b *testing.B) {
		for b.Loop() {
			tr.Refresh(ctx)
		}
	})
	b.Run("looking", func(b *testing.B) {
		for b.Loop() {
			v.set(0, func(*manager.MemberInfo) {})
			tr.Refresh(ctx)
		}
	})
}
