package manager

import (
	"fmt"
	"testing"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/boundedload"
)

// TestPlanComputedOnChange: every elector round asks for its rank; the
// plan is computed again only when the registry's members or supervisors
// change (or the supervisors alive), and it always answers as a plan
// computed anew would.
func TestPlanComputedOnChange(t *testing.T) {
	m := &Manager{me: "s1", members: map[string]federationv1alpha1.MemberClusterSpec{}, sessions: map[string]*session{}}
	set := func(id string, supervisor bool) {
		m.mu.Lock()
		defer m.mu.Unlock()
		if old, ok := m.members[id]; !ok || old.Supervisor != supervisor {
			m.registryChanges++
		}
		m.members[id] = federationv1alpha1.MemberClusterSpec{ClusterID: id, Supervisor: supervisor}
	}
	set("s1", true)
	for i := range 30 {
		set(fmt.Sprintf("member-%d", i), false)
	}
	check := func(step string, wantComputed uint64) {
		t.Helper()
		var ids []string
		for id := range m.members {
			ids = append(ids, id)
		}
		want := boundedload.Compute(ids, []string{"s1"})
		for range 3 {
			for _, id := range ids {
				if r, p := m.Rank(id); r != want.Rank(id, "s1") || p != want.Preferred(id) {
					t.Fatalf("%s: rank of %s is %d (preferred %s), a new plan says %d (%s)", step, id, r, p, want.Rank(id, "s1"), want.Preferred(id))
				}
			}
		}
		if m.plans.computed != wantComputed {
			t.Errorf("%s: %d plans computed, want %d", step, m.plans.computed, wantComputed)
		}
	}
	check("93 ranks asked", 1)
	set("member-3", false) // the same spec again: a registry reconcile
	check("the same registry read again", 1)
	set("member-30", false)
	check("a member joined", 2)
	set("s2", true) // a supervisor not alive: the same plan is computed again, once
	check("a supervisor registered", 3)
	m.removeMember("member-30")
	check("a member left", 4)
}
