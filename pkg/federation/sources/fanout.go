package sources

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// Every tracker of a supervisor hooks the same informers: each member's
// cache is shared by every leader controller of every member led, and each
// of them follows every member. Registered one by one, that made
// (members led) x (controllers) x (members) x (kinds) client-go listeners
// per supervisor, each with its own goroutines and a ring buffer of 1,024
// events: 4,500 listeners and 80 MB of buffers leading 10 of 30 members,
// most of the supervisor's memory at idle, and one wake-up per listener for
// every event. A fanout is the one handler registered on an informer; it
// calls every subscribed handler in turn.
//
// Handlers are called on the fanout's goroutine, one event at a time, so
// they must not block: the trackers' handlers add keys to work queues.
// No lock of the fanout is held while a handler runs (a handler may take
// its tracker's lock while that tracker unsubscribes): the subscribers are
// a list replaced on every change, and each subscription has its own lock,
// which orders its replay before its events.
type fanout struct {
	inf cache.Informer
	reg toolscache.ResourceEventHandlerRegistration
	// subs is read by every event and replaced (under fanouts.mu) by every
	// change.
	subs atomic.Pointer[[]*subscription]
}

type subscription struct {
	// mu is held while the subscription is given an event, or its replay.
	mu sync.Mutex
	h  toolscache.ResourceEventHandler
}

// fanouts are this process's fanouts, by informer; mu orders every change
// of their subscribers.
var fanouts = struct {
	mu sync.Mutex
	m  map[cache.Informer]*fanout
}{m: map[cache.Informer]*fanout{}}

func (f *fanout) each(call func(toolscache.ResourceEventHandler)) {
	for _, s := range *f.subs.Load() {
		s.mu.Lock()
		call(s.h)
		s.mu.Unlock()
	}
}

// OnAdd implements toolscache.ResourceEventHandler.
func (f *fanout) OnAdd(obj any, initial bool) {
	f.each(func(h toolscache.ResourceEventHandler) { h.OnAdd(obj, initial) })
}

// OnUpdate implements toolscache.ResourceEventHandler.
func (f *fanout) OnUpdate(old, obj any) {
	f.each(func(h toolscache.ResourceEventHandler) { h.OnUpdate(old, obj) })
}

// OnDelete implements toolscache.ResourceEventHandler.
func (f *fanout) OnDelete(obj any) {
	f.each(func(h toolscache.ResourceEventHandler) { h.OnDelete(obj) })
}

// storer is what the informers of a controller-runtime cache are: client-go
// shared informers, whose store a late subscriber is replayed from.
type storer interface{ GetStore() toolscache.Store }

// subscribe calls h on every event of inf until the returned function is
// called. Like a handler added to a running informer, h is first given
// every object the informer holds, as added. Around that replay an event
// may reach h twice, or late (an older version after the replayed one,
// then the newer again): h ends on the informer's state, and handlers that
// enqueue keys do not mind.
func subscribe(inf cache.Informer, h toolscache.ResourceEventHandler) (func(), error) {
	store, ok := inf.(storer)
	if !ok {
		reg, err := inf.AddEventHandler(h)
		if err != nil {
			return nil, err
		}
		return func() { _ = inf.RemoveEventHandler(reg) }, nil
	}
	s := &subscription{h: h}
	fanouts.mu.Lock()
	f := fanouts.m[inf]
	if f == nil {
		// The first subscriber: the informer replays its objects to the
		// new handler, and so to it.
		f = &fanout{inf: inf}
		f.subs.Store(&[]*subscription{s})
		reg, err := inf.AddEventHandler(f)
		if err != nil {
			fanouts.mu.Unlock()
			return nil, fmt.Errorf("adding the shared handler: %w", err)
		}
		f.reg = reg
		fanouts.m[inf] = f
		fanouts.mu.Unlock()
	} else {
		// Its events wait on its lock while it is given what the informer holds.
		s.mu.Lock()
		f.subs.Store(new(append(slices.Clone(*f.subs.Load()), s)))
		fanouts.mu.Unlock()
		for _, obj := range store.GetStore().List() {
			h.OnAdd(obj, true)
		}
		s.mu.Unlock()
	}
	var once sync.Once
	return func() { once.Do(func() { f.unsubscribe(s) }) }, nil
}

// unsubscribe removes s; the last one out removes the shared handler. An
// event being delivered meanwhile may still reach s, as with client-go's
// RemoveEventHandler.
func (f *fanout) unsubscribe(s *subscription) {
	fanouts.mu.Lock()
	defer fanouts.mu.Unlock()
	rest := slices.DeleteFunc(slices.Clone(*f.subs.Load()), func(x *subscription) bool { return x == s })
	f.subs.Store(&rest)
	if len(rest) == 0 && fanouts.m[f.inf] == f {
		_ = f.inf.RemoveEventHandler(f.reg)
		delete(fanouts.m, f.inf)
	}
}
