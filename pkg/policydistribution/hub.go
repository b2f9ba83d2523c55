package policydistribution

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// ErrNotReady is returned by Watch until the hub holds a complete first
// compilation: serving part of it would make agents drop rules.
var ErrNotReady = errors.New("the policy distribution has not loaded every policy yet")

// Scope is a set of enforcement points one consumer receives: the
// endpoints whose externalNode is Node, in Namespace ("" for every
// namespace). A VM agent's scope is its VM's namespace and name; the cloud
// controller's is the agentless node in every namespace.
type Scope struct {
	Namespace string
	Node      string
}

func (s Scope) String() string {
	if s.Namespace == "" {
		return "*/" + s.Node
	}
	return s.Namespace + "/" + s.Node
}

// contains reports whether an endpoint "namespace/name" is in the scope's
// namespace.
func (s Scope) contains(endpoint string) bool {
	return s.Namespace == "" || strings.HasPrefix(endpoint, s.Namespace+"/")
}

// Update is a change of one endpoint for Hub.Publish.
type Update struct {
	// Endpoint is "namespace/name".
	Endpoint string
	// Node is the endpoint's externalNode.
	Node string
	// Rules is the endpoint's full state; nil when it was deleted.
	Rules *wire.Endpoint
}

// Hub holds, per externalNode, the rules of its endpoints and their recent
// changes, numbered by one generation counter, and serves them to
// watchers. It is safe for concurrent use. Watchers pull at their own pace:
// a slow one never holds up the others; one that falls behind the kept
// history gets a Sync.
type Hub struct {
	mu           sync.Mutex
	epoch        string
	generation   uint64
	historyLimit int
	nodes        map[string]*nodeState
	// endpointNode is the node each endpoint was last published under.
	endpointNode map[string]string
	ready        bool
	now          func() time.Time
}

// nodeState is what the hub holds for one externalNode.
type nodeState struct {
	endpoints map[string]*wire.Endpoint
	history   []change
	// compacted is the newest generation whose changes are no longer in
	// history: a watcher that resumes from before it gets a Sync.
	compacted uint64
	watchers  map[*Watcher]struct{}
}

// change is what one Publish changed on one node.
type change struct {
	generation uint64
	published  time.Time
	endpoints  []wire.Endpoint // deltas against the previous versions
	deleted    []string
}

// DefaultHistory is the number of changes kept per node for watchers that
// resume.
const DefaultHistory = 256

// NewHub returns an empty hub with a fresh epoch. Generations start at the
// current time in microseconds, so that they also increase across restarts
// of the server.
func NewHub() *Hub {
	var raw [8]byte
	_, _ = rand.Read(raw[:])
	return &Hub{
		epoch:        hex.EncodeToString(raw[:]),
		generation:   uint64(time.Now().UnixMicro()),
		historyLimit: DefaultHistory,
		nodes:        map[string]*nodeState{},
		endpointNode: map[string]string{},
		now:          time.Now,
	}
}

// Epoch names this hub instance.
func (h *Hub) Epoch() string { return h.epoch }

// Generation returns the newest generation.
func (h *Hub) Generation() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.generation
}

// SetReady marks the hub complete: Watch serves from now on.
func (h *Hub) SetReady() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ready = true
	h.notifyAll()
}

// Ready reports whether SetReady was called: the hub holds every
// endpoint's rules.
func (h *Hub) Ready() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ready
}

// Publish records changes of endpoints as one new generation and wakes
// the watchers of the nodes they touch. Updates that change nothing are
// ignored; it returns the new generation, or 0 when nothing changed.
func (h *Hub) Publish(updates []Update) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	next := h.generation + 1
	now := h.now()
	changes := map[string]*change{}
	changeOf := func(node string) *change {
		if c := changes[node]; c != nil {
			return c
		}
		c := &change{generation: next, published: now}
		changes[node] = c
		return c
	}
	for _, u := range lastPerEndpoint(updates) {
		old, had := h.endpointNode[u.Endpoint]
		var prev *wire.Endpoint
		if had {
			prev = h.nodes[old].endpoints[u.Endpoint]
		}
		if had && (u.Rules == nil || old != u.Node) {
			delete(h.nodes[old].endpoints, u.Endpoint)
			delete(h.endpointNode, u.Endpoint)
			c := changeOf(old)
			c.deleted = append(c.deleted, u.Endpoint)
			prev = nil
		}
		if u.Rules == nil || (prev != nil && prev.Equal(u.Rules)) {
			continue
		}
		full := *u.Rules
		full.Generation = next
		h.node(u.Node).endpoints[u.Endpoint] = &full
		h.endpointNode[u.Endpoint] = u.Node
		c := changeOf(u.Node)
		c.endpoints = append(c.endpoints, full.Delta(prev))
	}
	if len(changes) == 0 {
		return 0
	}
	h.generation = next
	for node, c := range changes {
		st := h.node(node)
		st.history = append(st.history, *c)
		if over := len(st.history) - h.historyLimit; over > 0 {
			st.compacted = st.history[over-1].generation
			st.history = slices.Delete(st.history, 0, over)
		}
		for w := range st.watchers {
			w.wake()
		}
		h.collect(node)
	}
	return next
}

// lastPerEndpoint keeps the last update of each endpoint, in order.
func lastPerEndpoint(updates []Update) []Update {
	last := make(map[string]int, len(updates))
	for i, u := range updates {
		last[u.Endpoint] = i
	}
	out := make([]Update, 0, len(last))
	for i, u := range updates {
		if last[u.Endpoint] == i {
			out = append(out, u)
		}
	}
	return out
}

// node returns the state of a node, creating it. A new node cannot serve
// resumption from before now: its history starts empty.
func (h *Hub) node(name string) *nodeState {
	st := h.nodes[name]
	if st == nil {
		st = &nodeState{endpoints: map[string]*wire.Endpoint{}, compacted: h.generation, watchers: map[*Watcher]struct{}{}}
		h.nodes[name] = st
	}
	return st
}

// collect forgets a node that holds nothing and that nobody watches.
func (h *Hub) collect(name string) {
	if st := h.nodes[name]; st != nil && len(st.endpoints) == 0 && len(st.watchers) == 0 {
		delete(h.nodes, name)
	}
}

func (h *Hub) notifyAll() {
	for _, st := range h.nodes {
		for w := range st.watchers {
			w.wake()
		}
	}
}

// Endpoints returns the full state of a scope's endpoints, sorted by
// name: the Go API for a consumer in the same process. The endpoints share
// their rules with the hub and must not be modified.
func (h *Hub) Endpoints(s Scope) []wire.Endpoint {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.nodes[s.Node]
	if st == nil {
		return nil
	}
	var out []wire.Endpoint
	for _, name := range slices.Sorted(maps.Keys(st.endpoints)) {
		if s.contains(name) {
			out = append(out, *st.endpoints[name])
		}
	}
	return out
}

// EachEndpoint calls fn with every endpoint the hub holds and its
// externalNode, under the hub's lock: fn must be quick, must not call the
// hub, and must not modify or keep ep beyond the call.
func (h *Hub) EachEndpoint(fn func(node string, ep *wire.Endpoint)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for node, st := range h.nodes {
		for _, ep := range st.endpoints {
			fn(node, ep)
		}
	}
}

// ScopeGeneration returns the generation of the newest change of a scope
// still in its history and when it was published (zero when none is).
func (h *Hub) ScopeGeneration(s Scope) (uint64, time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.nodes[s.Node]
	if st == nil {
		return 0, time.Time{}
	}
	for i := len(st.history) - 1; i >= 0; i-- {
		c := &st.history[i]
		if slices.ContainsFunc(c.endpoints, func(ep wire.Endpoint) bool { return s.contains(ep.Name) }) ||
			slices.ContainsFunc(c.deleted, s.contains) {
			return c.generation, c.published
		}
	}
	return 0, time.Time{}
}

// PublishedAt returns when a generation of a node was published, if the
// node's history still holds it.
func (h *Hub) PublishedAt(node string, generation uint64) (time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.nodes[node]
	if st == nil {
		return time.Time{}, false
	}
	i, found := slices.BinarySearchFunc(st.history, generation, func(c change, g uint64) int {
		switch {
		case c.generation < g:
			return -1
		case c.generation > g:
			return 1
		}
		return 0
	})
	if !found {
		return time.Time{}, false
	}
	return st.history[i].published, true
}

// Endpoint returns one endpoint the hub holds and its externalNode. The
// endpoint shares its rules with the hub and must not be modified.
func (h *Hub) Endpoint(name string) (node string, ep wire.Endpoint, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	node, ok = h.endpointNode[name]
	if !ok {
		return "", wire.Endpoint{}, false
	}
	st := h.nodes[node]
	if st == nil || st.endpoints[name] == nil {
		return "", wire.Endpoint{}, false
	}
	return node, *st.endpoints[name], true
}
