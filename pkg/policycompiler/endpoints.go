package policycompiler

import (
	"cmp"
	"slices"

	"antreaplus.io/antreaplus/pkg/policyrules"
)

// endpointState is what the compiler last assembled for one ExternalEntity.
type endpointState struct {
	node       string
	rules      []*compiledRule
	hash       uint64
	generation uint64
	// present is false once the ExternalEntity is deleted, until Changed
	// reports it.
	present bool
	// reported and reportedHash are what Changed last reported.
	reported     bool
	reportedHash uint64
}

// refreshEndpoint assembles an endpoint's rules again and records whether
// they changed.
func (c *Compiler) refreshEndpoint(key string) {
	e := c.entities[externalEntityKind][key]
	st := c.endpoints[key]
	if e == nil {
		if st != nil && st.present {
			st.present, st.rules, st.hash = false, nil, 0
			c.generation++
			st.generation = c.generation
			c.changed[key] = struct{}{}
		}
		return
	}
	rules := c.assemble(e)
	hash := endpointHash(e.externalNode, rules)
	if st == nil {
		st = &endpointState{}
		c.endpoints[key] = st
	}
	unchanged := st.present && st.hash == hash
	st.rules, st.node, st.hash, st.present = rules, e.externalNode, hash, true
	if unchanged {
		return
	}
	c.generation++
	st.generation = c.generation
	c.changed[key] = struct{}{}
}

// assemble collects, in enforcement order, the compiled rules of every
// policy rule applied to e.
func (c *Compiler) assemble(e *entity) []*compiledRule {
	c.epoch++
	var out []*compiledRule
	for s := range e.set.selectors {
		for r := range s.appliedUsers {
			if r.seen == c.epoch || !tenancyAllows(r.policy, e) {
				continue
			}
			r.seen = c.epoch
			out = append(out, c.variant(r, e)...)
		}
	}
	slices.SortFunc(out, compareCompiledRules)
	return out
}

// compareCompiledRules orders ingress rules before egress rules, then by
// Antrea's priorities. Antrea leaves policies of equal priority in no
// defined order; the compiler orders them by tier name and policy
// reference, so that the output is deterministic.
func compareCompiledRules(a, b *compiledRule) int {
	switch {
	case a.Direction != b.Direction:
		return cmp.Compare(directionRank(a.Direction), directionRank(b.Direction))
	case a.Priority.Tier != b.Priority.Tier:
		return cmp.Compare(a.Priority.Tier, b.Priority.Tier)
	case a.Tier != b.Tier:
		return cmp.Compare(a.Tier, b.Tier)
	case a.Priority.Policy != b.Priority.Policy:
		return cmp.Compare(a.Priority.Policy, b.Priority.Policy)
	case a.Policy != b.Policy:
		return a.Policy.Compare(b.Policy)
	case a.Priority.RuleIndex != b.Priority.RuleIndex:
		return cmp.Compare(a.Priority.RuleIndex, b.Priority.RuleIndex)
	}
	return cmp.Compare(a.split, b.split)
}

func directionRank(d policyrules.Direction) int {
	if d == policyrules.DirectionIngress {
		return 0
	}
	return 1
}
