package leaderloop_test

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"antreaplus.io/antreaplus/pkg/federation/leaderloop"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// mirror is a leader controller that copies the ConfigMap "shared" of the
// Namespace "demo" of every other member into the member it leads, as
// "shared-<member>".
type mirror struct {
	registry client.Reader // the supervisor's registry
}

func (mirror) Name() string { return "mirror" }

// Run is the loop in led member m: a work queue of source members, a
// write client of its own, workers, resyncs, and the shared metrics
// labelled controller="mirror" (leaderloop.MetricsFor): this page is the
// whole controller.
func (c mirror) Run(ctx context.Context, m manager.Member) error {
	loop, err := leaderloop.New[string](ctx, c.Name(), m, leaderloop.Options{
		Workers: 2, Resync: time.Minute, Period: time.Second, WriteQPS: 50, WriteBurst: 100})
	if err != nil {
		return err
	}
	enqueue := func(ctx context.Context, id string, _ cluster.Cluster, _ client.Object) toolscache.ResourceEventHandler {
		return sources.Handler(func(sources.EventType, client.Object, client.Object) { loop.Queue.Add(id) })
	}
	tracker := sources.New(m, sources.Options{Kinds: []client.Object{&corev1.ConfigMap{}}, Handler: enqueue,
		Registry: c.registry, RegistryNamespace: "antreaplus-system", UnreachableHoldDown: 5 * time.Second}, loop.Log)
	defer tracker.Close()
	return loop.Run(ctx, leaderloop.Hooks[string]{
		Doing:   "Mirroring ConfigMaps",
		Start:   func(context.Context) error { return nil }, // nothing of the led member is watched
		Sources: tracker,
		EnqueueAll: func(context.Context) {
			for _, mi := range m.Federation.Members() {
				loop.Queue.Add(mi.ClusterID)
			}
		},
		Reconcile: func(ctx context.Context, source string) error {
			return c.reconcile(ctx, m, loop, tracker, source)
		},
		LogValues: func(source string) []any { return []any{"source", source} },
	})
}

// reconcile copies one source member's ConfigMap while it is Live, keeps
// the copy while it is Kept, and deletes it once it is Withdrawn.
func (c mirror) reconcile(ctx context.Context, m manager.Member, loop *leaderloop.Loop[string], t *sources.Tracker, source string) error {
	w := loop.Writer
	if source == m.ClusterID {
		return nil
	}
	copyOf := &corev1.ConfigMap{}
	copyOf.Namespace, copyOf.Name = "demo", "shared-"+source
	for _, mi := range m.Federation.Members() {
		if mi.ClusterID != source {
			continue
		}
		switch t.State(mi) {
		case sources.Kept:
			return nil
		case sources.Withdrawn:
			return loop.Write("ConfigMap", "delete", nil, func() error { return client.IgnoreNotFound(w.Delete(ctx, copyOf)) })
		case sources.Live:
			orig := &corev1.ConfigMap{}
			if err := mi.Cluster.GetClient().Get(ctx, client.ObjectKey{Namespace: "demo", Name: "shared"}, orig); err != nil {
				return client.IgnoreNotFound(err)
			}
			copyOf.Data = orig.Data
			// Fenced, counted, stamped with the leader's term.
			return loop.Write("ConfigMap", "apply", copyOf, func() error {
				err := w.Create(ctx, copyOf)
				if apierrors.IsAlreadyExists(err) {
					return w.Update(ctx, copyOf)
				}
				return err
			})
		}
	}
	return nil
}

// A leader controller built on the loop and a sources.Tracker, added to the
// federation manager's leader controllers (see manager.ExampleManager).
func Example() {
	var registry client.Reader // the supervisor manager's API reader
	opts := manager.DefaultOptions()
	opts.LeaderControllers = append(opts.LeaderControllers, mirror{registry: registry})
	_ = opts
}
