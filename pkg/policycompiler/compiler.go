package policycompiler

import (
	"fmt"
	"maps"
	"slices"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// Compiler compiles Antrea-native policies into the rules of every
// ExternalEntity, incrementally. It is not safe for concurrent use.
type Compiler struct {
	intern   interner
	index    *entityIndex
	tiers    tierTable
	groups   map[groupKey]*antreav1beta1.GroupSpec
	policies map[policyrules.PolicyRef]*compiledPolicy
	// policiesByGroup and policiesByTier find the policies to compile again
	// when a group or tier changes.
	policiesByGroup map[groupKey]map[policyrules.PolicyRef]struct{}
	policiesByTier  map[string]map[policyrules.PolicyRef]struct{}
	// sameLabelRules depend on Namespace labels through sameLabels peers.
	sameLabelRules  map[*policyRule]struct{}
	entities        [kindCount]map[string]*entity
	endpoints       map[string]*endpointState
	endpointsByNode map[string][]string

	// Work that flush does: selectors whose addresses changed, rules whose
	// endpoints must be assembled again, endpoints to assemble again.
	touched     map[*selectorItem]struct{}
	invalidated map[*policyRule]struct{}
	dirty       map[string]struct{}
	// changed are the endpoints whose rules may differ from what Changed
	// last reported.
	changed    map[string]struct{}
	generation uint64
	epoch      uint64
}

// New returns a Compiler that knows Antrea's default tiers and nothing else.
func New() *Compiler {
	c := &Compiler{
		intern:          interner{strings: map[string]string{}},
		tiers:           newTierTable(),
		groups:          map[groupKey]*antreav1beta1.GroupSpec{},
		policies:        map[policyrules.PolicyRef]*compiledPolicy{},
		policiesByGroup: map[groupKey]map[policyrules.PolicyRef]struct{}{},
		policiesByTier:  map[string]map[policyrules.PolicyRef]struct{}{},
		sameLabelRules:  map[*policyRule]struct{}{},
		endpoints:       map[string]*endpointState{},
		endpointsByNode: map[string][]string{},
		touched:         map[*selectorItem]struct{}{},
		invalidated:     map[*policyRule]struct{}{},
		dirty:           map[string]struct{}{},
		changed:         map[string]struct{}{},
	}
	c.index = newEntityIndex(&c.intern)
	for k := range kindCount {
		c.entities[k] = map[string]*entity{}
	}
	return c
}

// Rules returns the rules of the ExternalEntity "namespace/name", and false
// when there is no such ExternalEntity.
func (c *Compiler) Rules(endpoint string) (policyrules.EndpointRules, bool) {
	c.flush()
	st := c.endpoints[endpoint]
	if st == nil || !st.present {
		return policyrules.EndpointRules{}, false
	}
	out := policyrules.EndpointRules{
		Endpoint:     endpoint,
		ExternalNode: st.node,
		Rules:        make([]policyrules.CompiledRule, len(st.rules)),
		Hash:         fmt.Sprintf("%016x", st.hash),
		Generation:   st.generation,
	}
	for i, r := range st.rules {
		out.Rules[i] = r.CompiledRule
	}
	return out, true
}

// Changed returns, sorted, the endpoints whose rules differ from when
// Changed was last called: new, changed and deleted ExternalEntities
// (Rules reports a deleted one as missing).
func (c *Compiler) Changed() []string {
	c.flush()
	out := []string{}
	for key := range c.changed {
		st := c.endpoints[key]
		if st == nil {
			continue
		}
		if !st.present {
			delete(c.endpoints, key)
			if st.reported {
				out = append(out, key)
			}
			continue
		}
		if st.reported && st.reportedHash == st.hash {
			continue
		}
		st.reported, st.reportedHash = true, st.hash
		out = append(out, key)
	}
	clear(c.changed)
	slices.Sort(out)
	return out
}

// Endpoints returns every enforcement point, sorted.
func (c *Compiler) Endpoints() []string {
	return slices.Sorted(maps.Keys(c.entities[externalEntityKind]))
}

// EndpointsOnNode returns, sorted, the enforcement points whose
// ExternalEntity names node as its externalNode.
func (c *Compiler) EndpointsOnNode(node string) []string {
	return slices.Sorted(slices.Values(c.endpointsByNode[node]))
}

// PolicyStatus returns whether a policy is realised and why not, and false
// when the compiler does not hold that policy.
func (c *Compiler) PolicyStatus(ref policyrules.PolicyRef) (PolicyStatus, bool) {
	p, ok := c.policies[ref]
	if !ok {
		return PolicyStatus{}, false
	}
	applied := map[*entity]struct{}{}
	for _, r := range p.rules {
		for _, s := range r.appliedTo {
			s.forEachMember(func(e *entity) {
				if tenancyAllows(p, e) {
					applied[e] = struct{}{}
				}
			})
		}
	}
	return PolicyStatus{Policy: ref, Realized: p.realized(), Issues: p.issues.sorted(), Endpoints: len(applied)}, true
}

// PolicyStatuses returns the status of every policy, sorted by policy.
func (c *Compiler) PolicyStatuses() []PolicyStatus {
	refs := slices.SortedFunc(maps.Keys(c.policies), policyrules.PolicyRef.Compare)
	out := make([]PolicyStatus, 0, len(refs))
	for _, ref := range refs {
		st, _ := c.PolicyStatus(ref)
		out = append(out, st)
	}
	return out
}

// tenancyAllows reports whether policy may apply to e: a namespaced policy
// applies only to workloads of its own Namespace.
func tenancyAllows(p *compiledPolicy, e *entity) bool {
	return p.source.namespace == "" || p.source.namespace == e.namespace
}

// touch records that the addresses s selects changed. The cached addresses
// go at once, even when no rule uses s as a peer yet: one may later.
func (c *Compiler) touch(s *selectorItem) {
	s.addresses, s.addressesValid = nil, false
	if len(s.peerUsers) > 0 {
		c.touched[s] = struct{}{}
	}
}

// invalidate drops the compiled rules of r: every endpoint it applies to
// is assembled again.
func (c *Compiler) invalidate(r *policyRule) {
	r.variants, r.single = nil, nil
	c.invalidated[r] = struct{}{}
}

// appliedMark is an appliedTo selector whose members, limited to a
// Namespace ("" for all), were marked for assembly.
type appliedMark struct {
	selector  *selectorItem
	namespace string
}

// markApplied marks every endpoint r applies to for assembly. marked holds
// the selectors already marked: the rules of a policy usually share them.
func (c *Compiler) markApplied(r *policyRule, marked map[appliedMark]struct{}) {
	namespace := r.policy.source.namespace
	for _, s := range r.appliedTo {
		mark := appliedMark{selector: s, namespace: namespace}
		if _, done := marked[mark]; done {
			continue
		}
		marked[mark] = struct{}{}
		s.forEachMember(func(e *entity) {
			if namespace == "" || namespace == e.namespace {
				c.dirty[e.id] = struct{}{}
			}
		})
	}
}

// flush does the work that changes left: it recompiles the rules whose
// peers changed and assembles the endpoints they, or changes, touched.
func (c *Compiler) flush() {
	for s := range c.touched {
		if s.dead {
			continue
		}
		for r := range s.peerUsers {
			c.invalidate(r)
		}
	}
	clear(c.touched)
	marked := map[appliedMark]struct{}{}
	for r := range c.invalidated {
		if !r.dead {
			c.markApplied(r, marked)
		}
	}
	clear(c.invalidated)
	for key := range c.dirty {
		c.refreshEndpoint(key)
	}
	clear(c.dirty)
}
