package sources

import (
	"antreaplus.io/antreaplus/pkg/federation/manager"
)

// State is what a leader may do with what a member exports.
type State int

const (
	// Live: the member's informers are synced; what it exports is read.
	Live State = iota
	// Kept: they are not; what was imported from it stays as it is.
	Kept
	// Withdrawn: unreachable past the grace; what was imported from it is withdrawn.
	Withdrawn
)

// States lists every state, in order.
func States() []State { return []State{Live, Kept, Withdrawn} }

func (s State) String() string {
	return [...]string{"live", "kept", "withdrawn"}[s]
}

// State tells what may be done with a member's exports now. It also
// records when this tracker first saw the member marked unreachable: the
// hold-down counts from then.
func (t *Tracker) State(mi manager.MemberInfo) State {
	t.mu.Lock()
	h := t.hooks[mi.ClusterID]
	since, seen := t.unreachable[mi.ClusterID]
	switch {
	case mi.UnreachableSince == nil:
		delete(t.unreachable, mi.ClusterID)
	case !seen:
		t.unreachable[mi.ClusterID] = t.now()
	case t.now().Sub(since) >= t.opts.UnreachableHoldDown:
		t.mu.Unlock()
		return Withdrawn
	}
	t.mu.Unlock()
	if mi.Cluster == nil || h == nil || h.cluster != mi.Cluster || !h.synced() {
		return Kept
	}
	return Live
}

// Live lists the source members whose exports can be read now (the led
// member only with ReadLed).
func (t *Tracker) Live() []manager.MemberInfo {
	var out []manager.MemberInfo
	for _, mi := range t.m.Federation.Members() {
		if mi.ClusterID == t.m.ClusterID && !t.opts.ReadLed {
			continue
		}
		if t.State(mi) == Live {
			out = append(out, mi)
		}
	}
	return out
}
