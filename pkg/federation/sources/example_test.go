package sources_test

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// In a leader controller's Run for led member m: a tracker hooked on the
// Services of every member and on the led member's Namespaces, then the
// state of each member, which says what to do with its imports.
func ExampleTracker() {
	run := func(ctx context.Context, m manager.Member, registry client.Reader) error {
		log := ctrl.LoggerFrom(ctx)
		onEvent := sources.Handler(func(ev sources.EventType, obj, _ client.Object) {
			log.Info("Event", "type", ev, "object", client.ObjectKeyFromObject(obj))
		})
		t := sources.New(m, sources.Options{
			Kinds: []client.Object{&corev1.Service{}},
			Handler: func(context.Context, string, cluster.Cluster, client.Object) toolscache.ResourceEventHandler {
				return onEvent
			},
			Registry: registry, RegistryNamespace: "antreaplus-system", UnreachableHoldDown: 5 * time.Second,
		}, log)
		defer t.Close()
		if err := t.HookLed(ctx, sources.Watch{Kind: &corev1.Namespace{}, Handler: onEvent}); err != nil {
			return err
		}
		t.Refresh(ctx)                       // hook the members m.Federation shows now
		t.WaitForSources(ctx, 5*time.Second) // at most 5 s for their caches
		for _, mi := range m.Federation.Members() {
			switch t.State(mi) {
			case sources.Live: // read what it exports
			case sources.Kept: // keep what was imported from it
			case sources.Withdrawn: // withdraw what was imported from it
			}
		}
		return nil
	}
	_ = run
}
