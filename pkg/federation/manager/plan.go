package manager

import (
	"slices"
	"sync"

	"antreaplus.io/antreaplus/pkg/boundedload"
)

// planCache keeps the last plan and what it was computed from. Every
// elector asks for the plan every round (Rank): 30 members, 30 rounds a
// second, each computing the assignment of every member anew; the plan
// changes only with the registry or the supervisors alive.
type planCache struct {
	mu sync.Mutex
	// registryChanges is the Manager's count the lists below were read at.
	registryChanges uint64
	read            bool
	members         []string
	supervisors     []string
	// alive is what plan was computed for (nil: no plan yet).
	alive []string
	plan  boundedload.Plan
	// computed counts the plans computed.
	computed uint64
}

// plan is the balanced assignment over the registry and the live
// supervisors, computed again only when either changed.
func (m *Manager) plan() boundedload.Plan {
	c := &m.plans
	c.mu.Lock()
	defer c.mu.Unlock()
	m.mu.Lock()
	if !c.read || c.registryChanges != m.registryChanges {
		c.members, c.supervisors = c.members[:0], c.supervisors[:0]
		for id, spec := range m.members {
			c.members = append(c.members, id)
			if spec.Supervisor {
				c.supervisors = append(c.supervisors, id)
			}
		}
		slices.Sort(c.members)
		slices.Sort(c.supervisors)
		c.registryChanges, c.read, c.alive = m.registryChanges, true, nil
	}
	m.mu.Unlock()
	alive := []string{m.me}
	for _, s := range c.supervisors {
		if s != m.me && m.Alive(s) {
			alive = append(alive, s)
		}
	}
	if c.alive == nil || !slices.Equal(alive, c.alive) {
		c.plan, c.alive = boundedload.Compute(c.members, alive), alive
		c.computed++
	}
	return c.plan
}
