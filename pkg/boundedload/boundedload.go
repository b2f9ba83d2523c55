// Package boundedload places items on holders by consistent hashing with
// bounded loads: the same items and holders always give the same answer, on
// every process, with no communication. The federation uses it to decide
// which supervisor should lead each member (pkg/federation/manager), tenancy
// to share the tenants among a controller instance's replicas
// (pkg/tenancy); the doc below speaks of members and supervisors.
//
// Each member ranks the supervisors by rendezvous (highest random weight)
// hashing. Members are then placed, in a fixed order, on their best-ranked
// supervisor that still has room, where room is ceil(members/supervisors):
// consistent hashing with bounded loads. The result is balanced (no
// supervisor prefers more than the cap) and stable: when a supervisor leaves
// or returns, only the members that must move do, and the rest keep their
// preferred supervisor.
//
// # Usage
//
// See ExampleCompute: a plan, the ranks and the load of each supervisor.
package boundedload

import (
	"hash/fnv"
	"sort"
)

// Plan is the ranking of supervisors for every member.
type Plan struct {
	// order maps a member to its supervisors, preferred first.
	order map[string][]string
}

// Compute ranks the supervisors for every member. Duplicates are ignored.
func Compute(members, supervisors []string) Plan {
	members, supervisors = uniqueSorted(members), uniqueSorted(supervisors)
	plan := Plan{order: make(map[string][]string, len(members))}
	if len(supervisors) == 0 {
		return plan
	}
	capacity := (len(members) + len(supervisors) - 1) / len(supervisors)
	load := make(map[string]int, len(supervisors))
	// Place members in the order of their strongest preference, so the
	// members that care most about a supervisor get it first.
	ranked := make(map[string][]string, len(members))
	for _, m := range members {
		ranked[m] = rendezvous(m, supervisors)
	}
	sort.SliceStable(members, func(i, j int) bool {
		wi, wj := weight(members[i], ranked[members[i]][0]), weight(members[j], ranked[members[j]][0])
		if wi != wj {
			return wi > wj
		}
		return members[i] < members[j]
	})
	for _, m := range members {
		prefs := ranked[m]
		chosen := 0
		for i, s := range prefs {
			if load[s] < capacity {
				chosen = i
				break
			}
		}
		load[prefs[chosen]]++
		plan.order[m] = append([]string{prefs[chosen]}, without(prefs, chosen)...)
	}
	return plan
}

// Preferred returns the supervisor that should lead member, or "".
func (p Plan) Preferred(member string) string {
	if o := p.order[member]; len(o) > 0 {
		return o[0]
	}
	return ""
}

// Rank is supervisor's place in member's ranking (0 is preferred), or -1
// when the supervisor or the member is not in the plan.
func (p Plan) Rank(member, supervisor string) int {
	for i, s := range p.order[member] {
		if s == supervisor {
			return i
		}
	}
	return -1
}

// Order returns the supervisors of member, preferred first.
func (p Plan) Order(member string) []string {
	return append([]string(nil), p.order[member]...)
}

// Load counts the members each supervisor is preferred for.
func (p Plan) Load() map[string]int {
	load := map[string]int{}
	for _, o := range p.order {
		if len(o) > 0 {
			load[o[0]]++
		}
	}
	return load
}

// rendezvous orders supervisors by their hash weight for member, highest first.
func rendezvous(member string, supervisors []string) []string {
	out := append([]string(nil), supervisors...)
	sort.SliceStable(out, func(i, j int) bool {
		wi, wj := weight(member, out[i]), weight(member, out[j])
		if wi != wj {
			return wi > wj
		}
		return out[i] < out[j]
	})
	return out
}

func weight(member, supervisor string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(member))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(supervisor))
	// fnv mixes short inputs poorly in the high bits; finish with a splitmix step.
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func without(xs []string, i int) []string {
	out := make([]string, 0, len(xs)-1)
	out = append(out, xs[:i]...)
	return append(out, xs[i+1:]...)
}

func uniqueSorted(xs []string) []string {
	seen := make(map[string]bool, len(xs))
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}
