package sources

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	toolscache "k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"
)

// seen records the names a subscriber was told of, by event.
type seen struct {
	mu                   sync.Mutex
	added, updated, gone map[string]int
}

func newSeen() *seen {
	return &seen{added: map[string]int{}, updated: map[string]int{}, gone: map[string]int{}}
}

func (s *seen) handler() toolscache.ResourceEventHandler {
	name := func(o any) string {
		if t, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
			o = t.Obj
		}
		return o.(*corev1.Service).Name
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { s.mu.Lock(); s.added[name(o)]++; s.mu.Unlock() },
		UpdateFunc: func(_, o any) { s.mu.Lock(); s.updated[name(o)]++; s.mu.Unlock() },
		DeleteFunc: func(o any) { s.mu.Lock(); s.gone[name(o)]++; s.mu.Unlock() },
	}
}

func (s *seen) has(m func(*seen) map[string]int, name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return m(s)[name] > 0
}

func added(s *seen) map[string]int   { return s.added }
func updated(s *seen) map[string]int { return s.updated }
func gone(s *seen) map[string]int    { return s.gone }

func svc(name, version string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: version}}
}

// TestFanoutSharesOneHandler: every subscriber of an informer is given
// what it holds and every event after, through one handler registered on
// the informer, removed with the last subscriber.
func TestFanoutSharesOneHandler(t *testing.T) {
	src := fcache.NewFakeControllerSource()
	src.Add(svc("a", "1"))
	src.Add(svc("b", "1"))
	inf := toolscache.NewSharedIndexInformer(src, &corev1.Service{}, 0, toolscache.Indexers{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go inf.Run(ctx.Done())
	if !toolscache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
	eventually := func(what string, cond func() bool) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) { return cond(), nil }); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	first, late := newSeen(), newSeen()
	unsubFirst, err := subscribe(inf, first.handler())
	if err != nil {
		t.Fatal(err)
	}
	unsubLate, err := subscribe(inf, late.handler())
	if err != nil {
		t.Fatal(err)
	}
	if subs, handlers := subscribers(); subs != 2 || handlers != 1 {
		t.Fatalf("%d subscriptions through %d handlers, want 2 through 1", subs, handlers)
	}
	for _, s := range []*seen{first, late} {
		eventually("both are given what the informer holds", func() bool { return s.has(added, "a") && s.has(added, "b") })
	}

	src.Add(svc("c", "1"))
	src.Modify(svc("a", "2"))
	src.Delete(svc("b", "1"))
	for _, s := range []*seen{first, late} {
		eventually("both are told of every event", func() bool {
			return s.has(added, "c") && s.has(updated, "a") && s.has(gone, "b")
		})
	}

	unsubFirst()
	unsubFirst() // twice is once
	src.Add(svc("d", "1"))
	eventually("the remaining subscriber is told", func() bool { return late.has(added, "d") })
	if first.has(added, "d") {
		t.Error("a subscriber that left was told of an event")
	}
	unsubLate()
	if subs, handlers := subscribers(); subs != 0 || handlers != 0 {
		t.Errorf("after the last left: %d subscriptions through %d handlers, want none", subs, handlers)
	}
}

// subscribers counts the subscriptions and shared handlers of the process.
func subscribers() (subs, handlers int) {
	fanouts.mu.Lock()
	defer fanouts.mu.Unlock()
	for _, f := range fanouts.m {
		subs += len(*f.subs.Load())
		handlers++
	}
	return subs, handlers
}
