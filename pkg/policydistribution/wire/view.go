package wire

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// ErrResync means an Event cannot be applied to a View: the client must
// watch again from scratch (no epoch, no generation) to get a Sync.
var ErrResync = errors.New("the event does not follow the view: a full resync is needed")

// View is what a client holds of its scope: every endpoint with every rule
// body, as of Epoch and Generation. A View is immutable: Apply returns a
// new one, sharing the endpoints that did not change.
type View struct {
	// Scope is what the view is of, as the Sync that started it said.
	Scope      string               `json:"scope"`
	Epoch      string               `json:"epoch"`
	Generation uint64               `json:"generation"`
	Endpoints  map[string]*Endpoint `json:"endpoints"`
}

// Apply returns the view after ev. A Bookmark changes nothing but must
// carry the view's epoch; an Update must follow the view (same epoch, a
// newer generation) and name only rules the view or the event holds.
// Otherwise, or when v is nil and ev is not a Sync, it returns ErrResync.
func (v *View) Apply(ev *Event) (*View, error) {
	if v == nil && ev.Type != EventSync {
		return nil, fmt.Errorf("%w: %s event before any Sync", ErrResync, ev.Type)
	}
	switch ev.Type {
	case EventSync:
		out := &View{Scope: ev.Scope, Epoch: ev.Epoch, Generation: ev.Generation, Endpoints: make(map[string]*Endpoint, len(ev.Endpoints))}
		for i := range ev.Endpoints {
			ep := ev.Endpoints[i]
			if err := complete(&ep); err != nil {
				return nil, err
			}
			out.Endpoints[ep.Name] = &ep
		}
		return out, nil
	case EventBookmark:
		if ev.Epoch != v.Epoch {
			return nil, fmt.Errorf("%w: bookmark of epoch %q, view of %q", ErrResync, ev.Epoch, v.Epoch)
		}
		return v, nil
	case EventUpdate:
		return v.update(ev)
	}
	return nil, fmt.Errorf("%w: unknown event type %q", ErrResync, ev.Type)
}

func (v *View) update(ev *Event) (*View, error) {
	if ev.Epoch != v.Epoch || ev.Generation <= v.Generation {
		return nil, fmt.Errorf("%w: update %s/%d after view %s/%d", ErrResync, ev.Epoch, ev.Generation, v.Epoch, v.Generation)
	}
	out := &View{Scope: v.Scope, Epoch: v.Epoch, Generation: ev.Generation, Endpoints: maps.Clone(v.Endpoints)}
	if out.Endpoints == nil {
		out.Endpoints = map[string]*Endpoint{}
	}
	for _, name := range ev.Deleted {
		delete(out.Endpoints, name)
	}
	for i := range ev.Endpoints {
		delta := &ev.Endpoints[i]
		ep := *delta
		ep.Rules = make(map[RuleID]Rule, len(ep.Order))
		prev := out.Endpoints[ep.Name]
		for _, id := range ep.Order {
			if r, ok := delta.Rules[id]; ok {
				ep.Rules[id] = r
			} else if prev != nil {
				if r, ok := prev.Rules[id]; ok {
					ep.Rules[id] = r
				}
			}
		}
		if err := complete(&ep); err != nil {
			return nil, err
		}
		out.Endpoints[ep.Name] = &ep
	}
	return out, nil
}

// complete checks that an endpoint holds the body of every rule it orders.
func complete(ep *Endpoint) error {
	for _, id := range ep.Order {
		if _, ok := ep.Rules[id]; !ok {
			return fmt.Errorf("%w: endpoint %s lacks the body of rule %s", ErrResync, ep.Name, id)
		}
	}
	return nil
}

// Names returns the names of the view's endpoints, sorted.
func (v *View) Names() []string {
	if v == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(v.Endpoints))
}

// RuleCount returns the number of rules of every endpoint together.
func (v *View) RuleCount() int {
	if v == nil {
		return 0
	}
	n := 0
	for _, ep := range v.Endpoints {
		n += len(ep.Order)
	}
	return n
}
