package manager

import (
	"errors"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/election"
)

// TestsameMembers: the view's version moves when any field a leader
// controller reads of a member changes, and not when a view is computed
// again with the same answer (a copy of the same time, of the same labels).
func TestSameMembers(t *testing.T) {
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	again := at
	var a, b cluster.Cluster = fakeCluster{name: "a"}, fakeCluster{name: "b"}
	base := MemberInfo{ClusterID: "m", Cluster: a, Reachable: true, UnreachableSince: &at, Labels: map[string]string{"region": "eu"}}
	cases := []struct {
		name   string
		change func(*MemberInfo)
		same   bool
	}{
		{name: "computed again", same: true, change: func(mi *MemberInfo) {
			mi.UnreachableSince, mi.Labels = &again, map[string]string{"region": "eu"}
		}},
		{name: "another cache", change: func(mi *MemberInfo) { mi.Cluster = b }},
		{name: "not connected", change: func(mi *MemberInfo) { mi.Cluster = nil }},
		{name: "probe failed", change: func(mi *MemberInfo) { mi.Reachable = false }},
		{name: "reachable again", change: func(mi *MemberInfo) { mi.UnreachableSince = nil }},
		{name: "last seen later", change: func(mi *MemberInfo) { later := at.Add(time.Second); mi.UnreachableSince = &later }},
		{name: "a label", change: func(mi *MemberInfo) { mi.Labels = map[string]string{"region": "us"} }},
		{name: "a supervisor now", change: func(mi *MemberInfo) { mi.Supervisor = true }},
		{name: "another member", change: func(mi *MemberInfo) { mi.ClusterID = "n" }},
	}
	for _, c := range cases {
		mi := base
		c.change(&mi)
		if got := sameMembers([]MemberInfo{base}, []MemberInfo{mi}); got != c.same {
			t.Errorf("%s: same %t, want %t", c.name, got, c.same)
		}
	}
	if sameMembers([]MemberInfo{base}, []MemberInfo{base, base}) {
		t.Error("a member more: the same view")
	}
}

// fakeCluster is a member's cache, told apart from another by name.
type fakeCluster struct {
	cluster.Cluster
	name string
}

// TestViewFreshAtAProbesOutcome: a probe whose outcome differs from the
// one before (answered, then failed, then answered) makes the next reader
// see a new view at once, well within membersFresh; probes with the same
// outcome do not make the view computed again.
func TestViewFreshAtAProbesOutcome(t *testing.T) {
	m := New(DefaultOptions(), "supervisor", nil, nil)
	s := newSession(m, &federationv1alpha1.MemberCluster{Spec: federationv1alpha1.MemberClusterSpec{ClusterID: "m"}}, "key")
	s.elector = election.New(m.opts.Election, "supervisor", "m", nil, nil, nil)
	m.sessions["m"] = s

	reachable := func() bool { return m.Members()[0].Reachable }
	v0 := m.Version()
	if reachable() {
		t.Fatal("reachable before any probe")
	}
	s.probe.record(nil)
	if v := m.Version(); v == v0 || !reachable() {
		t.Fatalf("after a probe answered: version %d (was %d), reachable %t; want a new view, reachable", v, v0, reachable())
	}
	at := m.view.at
	s.probe.record(nil)
	if m.Version(); !m.view.at.Equal(at) {
		t.Error("a probe with the same outcome made the view computed again")
	}
	v1 := m.Version()
	s.probe.record(errors.New("connection refused"))
	if v := m.Version(); v == v1 || reachable() {
		t.Fatalf("after a probe failed: version %d (was %d), reachable %t; want a new view, unreachable", v, v1, reachable())
	}
}
