package policycompiler

import (
	"maps"
	"net/netip"
	"slices"

	"k8s.io/apimachinery/pkg/labels"

	"antreaplus.io/antreaplus/pkg/policyrules"
)

// variant returns the compiled rules of r for endpoint e. Most rules
// compile the same for every endpoint; a rule differs by the endpoint's
// Namespace when it has per-Namespace peers, and by the endpoint's named
// ports when it is an ingress rule with named ports. Variants are cached
// until r's peers change.
func (c *Compiler) variant(r *policyRule, e *entity) []*compiledRule {
	if !r.perNamespace() && (!r.named || r.direction != policyrules.DirectionIngress) {
		if r.single == nil {
			v := c.compileVariant(r, e, nil)
			r.single = &v
		}
		return *r.single
	}
	key := ""
	if r.perNamespace() {
		key = e.namespace
	}
	var ingressPorts []policyrules.Port
	if r.direction == policyrules.DirectionIngress && r.named {
		ingressPorts = resolvePorts(r.ports, e.ports)
		key += "|" + portsKey(ingressPorts)
	}
	if v, ok := r.variants[key]; ok {
		return v
	}
	v := c.compileVariant(r, e, ingressPorts)
	if r.variants == nil {
		r.variants = map[string][]*compiledRule{}
	}
	r.variants[key] = v
	return v
}

// compileVariant compiles r for e. A rule that can match no traffic (no
// peer address, or named ports that resolve to nothing) compiles to
// nothing.
func (c *Compiler) compileVariant(r *policyRule, e *entity, ingressPorts []policyrules.Port) []*compiledRule {
	base := compiledRule{CompiledRule: policyrules.CompiledRule{
		Direction:     r.direction,
		Action:        r.action,
		Priority:      policyrules.Priority{Tier: r.policy.tierPriority, Policy: r.policy.source.priority, RuleIndex: r.index},
		Tier:          r.policy.tier,
		Policy:        r.policy.source.ref,
		RuleName:      r.name,
		EnableLogging: r.logging,
		LogLabel:      r.logLabel,
	}}
	ports := fixedPorts(r.ports)
	switch {
	case r.named && r.direction == policyrules.DirectionIngress:
		ports = ingressPorts
	case r.named && r.anyPeer:
		// Every destination: no workload to resolve names against.
		ports = resolvePorts(r.ports, nil)
	case r.named:
		return c.splitByNamedPorts(base, r, c.peerSelectors(r, e))
	}
	if ports != nil && len(ports) == 0 {
		return nil
	}
	base.Ports = ports
	if r.anyPeer {
		base.AnyPeer = true
		return []*compiledRule{finish(base)}
	}
	base.Peers = c.peerPrefixes(c.peerSelectors(r, e), r.ipBlocks)
	if len(base.Peers) == 0 {
		return nil
	}
	return []*compiledRule{finish(base)}
}

func finish(r compiledRule) *compiledRule {
	r.hash = ruleHash(&r.CompiledRule)
	return &r
}

// fixedPorts returns the ports of specs that have no named port; nil
// (every port) when specs is nil.
func fixedPorts(specs []portSpec) []policyrules.Port {
	if specs == nil {
		return nil
	}
	return resolvePorts(specs, nil)
}

// peerSelectors returns the selectors of r's peers for endpoint e: the
// fixed ones, plus the per-Namespace ones for e's Namespace.
func (c *Compiler) peerSelectors(r *policyRule, e *entity) []*selectorItem {
	if !r.perNamespace() {
		return r.peers
	}
	out := slices.Clone(r.peers)
	for _, t := range r.self {
		spec := selectorSpec{kind: t.kind, scope: scopeNamespace, namespace: e.namespace, selector: t.selector}
		out = append(out, c.dynamicSelector(r, spec))
	}
	nsLabels := c.index.namespaceLabels[e.namespace]
	for _, t := range r.sameLabel {
		same := labels.Set{}
		for _, k := range t.keys {
			v, ok := nsLabels[k]
			if !ok {
				// A Namespace without one of the keys has no peers here, as in Antrea.
				same = nil
				break
			}
			same[k] = v
		}
		if same == nil {
			continue
		}
		spec := selectorSpec{kind: t.kind, scope: scopeNamespaceSelector, nsSelector: labels.SelectorFromSet(same), selector: t.selector}
		out = append(out, c.dynamicSelector(r, spec))
	}
	return out
}

// peerPrefixes returns the canonical union of the addresses of selectors
// and of ipBlocks, sharing a selector's cached prefixes when it is alone.
func (c *Compiler) peerPrefixes(selectors []*selectorItem, ipBlocks []netip.Prefix) []netip.Prefix {
	switch {
	case len(selectors) == 0:
		return ipBlocks
	case len(selectors) == 1 && len(ipBlocks) == 0:
		return selectorAddresses(selectors[0])
	}
	all := slices.Clone(ipBlocks)
	for _, s := range selectors {
		all = append(all, selectorAddresses(s)...)
	}
	return normalizePrefixes(all)
}

// selectorAddresses returns the canonical prefixes of the IPs of the
// workloads s selects, computing them once per change.
func selectorAddresses(s *selectorItem) []netip.Prefix {
	if s.addressesValid {
		return s.addresses
	}
	var all []netip.Prefix
	s.forEachMember(func(e *entity) {
		for _, ip := range e.ips {
			all = append(all, hostPrefix(ip))
		}
	})
	s.addresses, s.addressesValid = normalizePrefixes(all), true
	return s.addresses
}

// splitByNamedPorts compiles an egress rule with named ports: each peer
// workload resolves the names against its own ports, so peers that resolve
// them alike share one rule, as Antrea's agent groups them. ipBlocks
// resolve no name.
func (c *Compiler) splitByNamedPorts(base compiledRule, r *policyRule, selectors []*selectorItem) []*compiledRule {
	type portGroup struct {
		ports    []policyrules.Port
		prefixes []netip.Prefix
	}
	groups := map[string]*portGroup{}
	add := func(ports []policyrules.Port, prefixes ...netip.Prefix) {
		if len(ports) == 0 {
			return
		}
		key := portsKey(ports)
		g, ok := groups[key]
		if !ok {
			g = &portGroup{ports: ports}
			groups[key] = g
		}
		g.prefixes = append(g.prefixes, prefixes...)
	}
	for _, s := range selectors {
		s.forEachMember(func(e *entity) {
			ports := resolvePorts(r.ports, e.ports)
			for _, ip := range e.ips {
				add(ports, hostPrefix(ip))
			}
		})
	}
	add(resolvePorts(r.ports, nil), r.ipBlocks...)
	var out []*compiledRule
	for i, key := range slices.Sorted(maps.Keys(groups)) {
		rule := base
		rule.Ports = groups[key].ports
		rule.Peers = normalizePrefixes(groups[key].prefixes)
		rule.split = int32(i)
		if len(rule.Peers) > 0 {
			out = append(out, finish(rule))
		}
	}
	return out
}
