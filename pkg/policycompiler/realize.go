package policycompiler

import "antreaplus.io/antreaplus/pkg/policyrules"

// setPolicy compiles a policy, replacing any earlier version of it. A
// policy with an Error is kept, unrealised, so that its status can be read
// and so that it is compiled again when a tier or group it needs appears.
func (c *Compiler) setPolicy(src *policySource) {
	c.removePolicy(src.ref)
	policy, plans := c.planPolicy(src)
	c.policies[src.ref] = policy
	addToSet(c.policiesByTier, policy.tier, src.ref)
	for g := range policy.groups {
		addToSet(c.policiesByGroup, g, src.ref)
	}
	if policy.realized() {
		for i := range plans {
			c.realizeRule(policy, &plans[i])
		}
	}
}

// removePolicy forgets a policy; the endpoints it applied to are assembled
// again.
func (c *Compiler) removePolicy(ref policyrules.PolicyRef) {
	old, ok := c.policies[ref]
	if !ok {
		return
	}
	marked := map[appliedMark]struct{}{}
	for _, r := range old.rules {
		c.markApplied(r, marked)
		c.releaseRule(r)
	}
	removeFromSet(c.policiesByTier, old.tier, ref)
	for g := range old.groups {
		removeFromSet(c.policiesByGroup, g, ref)
	}
	delete(c.policies, ref)
}

// realizeRule registers the selectors of a planned rule.
func (c *Compiler) realizeRule(policy *compiledPolicy, plan *rulePlan) {
	r := &policyRule{
		policy:    policy,
		direction: plan.direction,
		index:     plan.index,
		action:    plan.action,
		name:      plan.name,
		logging:   plan.logging,
		logLabel:  plan.logLabel,
		ports:     plan.ports,
		named:     hasNamedPort(plan.ports),
		anyPeer:   plan.peers.any,
		self:      plan.peers.self,
		sameLabel: plan.peers.sameLabel,
		ipBlocks:  plan.peers.prefixes,
	}
	for _, s := range c.acquireAll(plan.appliedTo) {
		s.appliedUsers[r] = struct{}{}
		r.appliedTo = append(r.appliedTo, s)
	}
	for _, s := range c.acquireAll(plan.peers.selectors) {
		s.peerUsers[r] = struct{}{}
		r.peers = append(r.peers, s)
	}
	if len(r.sameLabel) > 0 {
		c.sameLabelRules[r] = struct{}{}
	}
	policy.rules = append(policy.rules, r)
	c.invalidated[r] = struct{}{}
}

// acquireAll registers selectors, each once.
func (c *Compiler) acquireAll(specs []selectorSpec) []*selectorItem {
	out := make([]*selectorItem, 0, len(specs))
	seen := map[string]bool{}
	for _, spec := range specs {
		key := spec.key()
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, c.index.acquire(spec))
	}
	return out
}

// dynamicSelector returns the selector of spec for a rule's per-Namespace
// peers, registering it the first time.
func (c *Compiler) dynamicSelector(r *policyRule, spec selectorSpec) *selectorItem {
	key := spec.key()
	if s, ok := r.dynamic[key]; ok {
		return s
	}
	s := c.index.acquire(spec)
	s.peerUsers[r] = struct{}{}
	if r.dynamic == nil {
		r.dynamic = map[string]*selectorItem{}
	}
	r.dynamic[key] = s
	return s
}

// releaseRule unregisters the selectors of a rule that is going away.
func (c *Compiler) releaseRule(r *policyRule) {
	r.dead = true
	for _, s := range r.appliedTo {
		delete(s.appliedUsers, r)
		c.index.release(s)
	}
	for _, s := range r.peers {
		delete(s.peerUsers, r)
		c.index.release(s)
	}
	for _, s := range r.dynamic {
		delete(s.peerUsers, r)
		c.index.release(s)
	}
	delete(c.sameLabelRules, r)
	delete(c.invalidated, r)
}
