package policydistribution

import (
	"maps"
	"slices"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// Watcher follows one scope of a Hub from a generation on. It is used by
// one goroutine: wait on Wake, then call Next.
type Watcher struct {
	hub   *Hub
	scope Scope
	// cursor is the generation up to which the watcher has been given
	// every change of its scope.
	cursor   uint64
	needSync bool
	wakeCh   chan struct{}
}

// Watch starts following a scope. With the hub's epoch and a generation
// whose later changes the hub still holds, the watcher resumes: Next
// returns the Updates after since. Otherwise (another epoch, a
// generation too old, or none) Next first returns a Sync. resumed says
// which. Watch fails with ErrNotReady until SetReady.
func (h *Hub) Watch(s Scope, epoch string, since uint64) (w *Watcher, resumed bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.ready {
		return nil, false, ErrNotReady
	}
	st := h.node(s.Node)
	w = &Watcher{hub: h, scope: s, wakeCh: make(chan struct{}, 1)}
	resumed = epoch == h.epoch && since >= st.compacted && since <= h.generation
	if resumed {
		w.cursor = since
	} else {
		w.needSync = true
	}
	st.watchers[w] = struct{}{}
	w.wake()
	return w, resumed, nil
}

// Wake is signalled when Next may have something to return.
func (w *Watcher) Wake() <-chan struct{} { return w.wakeCh }

func (w *Watcher) wake() {
	select {
	case w.wakeCh <- struct{}{}:
	default:
	}
}

// Stop ends the watch.
func (w *Watcher) Stop() {
	h := w.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if st := h.nodes[w.scope.Node]; st != nil {
		delete(st.watchers, w)
		h.collect(w.scope.Node)
	}
}

// Next returns the events the watcher has not had yet: a Sync, or one
// Update per generation that changed the scope. It returns nothing when
// the watcher is up to date.
func (w *Watcher) Next() []wire.Event {
	h := w.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.node(w.scope.Node)
	if w.needSync || w.cursor < st.compacted {
		w.needSync = false
		w.cursor = h.generation
		return []wire.Event{w.sync(st)}
	}
	var out []wire.Event
	for i := range st.history {
		c := &st.history[i]
		if c.generation <= w.cursor {
			continue
		}
		ev := wire.Event{Type: wire.EventUpdate, Epoch: h.epoch, Generation: c.generation, PublishedUnixNano: c.published.UnixNano()}
		for _, ep := range c.endpoints {
			if w.scope.contains(ep.Name) {
				ev.Endpoints = append(ev.Endpoints, ep)
			}
		}
		for _, name := range c.deleted {
			if w.scope.contains(name) {
				ev.Deleted = append(ev.Deleted, name)
			}
		}
		if len(ev.Endpoints) > 0 || len(ev.Deleted) > 0 {
			out = append(out, ev)
		}
	}
	w.cursor = h.generation
	return out
}

// Bookmark returns an event that tells the consumer the generation up to
// which it has had every change: it may resume from there.
func (w *Watcher) Bookmark() wire.Event {
	h := w.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	return wire.Event{Type: wire.EventBookmark, Epoch: h.epoch, Generation: w.cursor}
}

// sync returns every endpoint of the scope in full. The hub's lock is held.
func (w *Watcher) sync(st *nodeState) wire.Event {
	ev := wire.Event{Type: wire.EventSync, Epoch: w.hub.epoch, Generation: w.hub.generation, Scope: w.scope.String(),
		PublishedUnixNano: w.hub.now().UnixNano()}
	for _, name := range slices.Sorted(maps.Keys(st.endpoints)) {
		if w.scope.contains(name) {
			ev.Endpoints = append(ev.Endpoints, *st.endpoints[name])
		}
	}
	return ev
}
