package manager

import (
	"maps"
	"slices"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"antreaplus.io/antreaplus/pkg/federation/health"
)

// FederationView gives read access to every member of the registry.
type FederationView interface {
	// Members lists the registry's members, sorted by clusterID.
	Members() []MemberInfo
	// Version numbers the view: it changes whenever what Members answers
	// changes, and only then (or more often, never less). A reader that
	// saw version v and then Members' answer knows, while Version still
	// says v, that the answer has not changed.
	Version() uint64
}

// MemberInfo is one member as this manager sees it.
type MemberInfo struct {
	ClusterID  string
	Supervisor bool
	// Cluster is the member's client and cache; nil while not connected.
	Cluster cluster.Cluster
	// Reachable is this manager's last probe result.
	Reachable bool
	// UnreachableSince is set once no supervisor has reached the member for
	// longer than the grace period: only then may its exports be withdrawn.
	UnreachableSince *time.Time
	// Labels are the labels of the member's registry entry (its
	// MemberCluster): what export scopes and refusals select. Shared: not
	// to be modified.
	Labels map[string]string
}

// same tells whether two views of a member say the same.
func (mi MemberInfo) same(o MemberInfo) bool {
	return mi.ClusterID == o.ClusterID && mi.Supervisor == o.Supervisor && mi.Cluster == o.Cluster && mi.Reachable == o.Reachable &&
		sameTime(mi.UnreachableSince, o.UnreachableSince) && maps.Equal(mi.Labels, o.Labels)
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// sameMembers tells whether two views say the same of every member.
func sameMembers(a, b []MemberInfo) bool {
	return slices.EqualFunc(a, b, MemberInfo.same)
}

// Members implements FederationView.
//
// The view is computed at most once per membersFresh while no session,
// label or probe outcome changes, and shared: every leader controller of
// every member led asks for it at least once a second, and computing it
// is quadratic in the members (each member's health reads every
// supervisor's report).
func (m *Manager) Members() []MemberInfo {
	m.view.mu.Lock()
	defer m.view.mu.Unlock()
	m.freshViewLocked()
	return slices.Clone(m.view.members)
}

// Version implements FederationView: it counts the computed views that
// differed from the one before.
func (m *Manager) Version() uint64 {
	m.view.mu.Lock()
	defer m.view.mu.Unlock()
	m.freshViewLocked()
	return m.view.version
}

// freshViewLocked computes the view again if it is older than membersFresh,
// or a session or label changed since, or a probe's outcome (m.view.mu held).
func (m *Manager) freshViewLocked() {
	now := time.Now()
	m.mu.Lock()
	changes := m.changes
	m.mu.Unlock()
	flips := m.probeFlips.Load()
	if m.view.members != nil && m.view.changes == changes && m.view.flips == flips && now.Sub(m.view.at) < membersFresh {
		return
	}
	members := m.computeMembers(now)
	if m.view.members == nil || !sameMembers(members, m.view.members) {
		m.view.version++
	}
	m.view.members, m.view.at, m.view.changes, m.view.flips = members, now, changes, flips
}

// membersFresh is how long Members' view is reused while no session,
// label or probe outcome changes: what it still catches is what time
// alone changes (a probe gone quiet for LateAfter, a grace ending, another
// supervisor's report read), all of them seconds long: one election retry
// period, at which reachability is judged, is soon enough. (It was 200 ms, when
// nothing else made the view fresh: a supervisor computed it five times a
// second, 6-8% of its CPU at idle in the profiles of 2026-12-06.)
const membersFresh = time.Second

// computeMembers computes the view of Members at now.
func (m *Manager) computeMembers(now time.Time) []MemberInfo {
	out := []MemberInfo{}
	m.mu.Lock()
	labels := maps.Clone(m.labels)
	m.mu.Unlock()
	sessions := m.snapshot()
	for _, s := range sessions {
		in := m.statusInput(s, sessions, now)
		member, _ := s.currentMember()
		info := MemberInfo{ClusterID: s.clusterID, Supervisor: s.spec.Supervisor, Cluster: member, Reachable: in.reachable, Labels: labels[s.clusterID]}
		if v := health.Assess(in.views, now, in.grace, in.registered); v.Unreachable {
			since := v.LastSeen
			info.UnreachableSince = &since
		}
		out = append(out, info)
	}
	return out
}
