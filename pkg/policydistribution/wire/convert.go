package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/netip"
	"slices"

	"antreaplus.io/antreaplus/pkg/policyrules"
)

// NewEndpoint makes the full Endpoint of compiled rules: every rule body
// is included.
func NewEndpoint(rules policyrules.EndpointRules, addresses []netip.Addr) Endpoint {
	ep := Endpoint{
		Name:       rules.Endpoint,
		Addresses:  addresses,
		Hash:       rules.Hash,
		Generation: rules.Generation,
		Order:      make([]RuleID, 0, len(rules.Rules)),
		Rules:      make(map[RuleID]Rule, len(rules.Rules)),
	}
	for i := range rules.Rules {
		r := FromCompiled(&rules.Rules[i])
		id := r.ID()
		ep.Order = append(ep.Order, id)
		ep.Rules[id] = r
	}
	return ep
}

// FromCompiled converts a compiled rule. The result shares Peers with r.
func FromCompiled(r *policyrules.CompiledRule) Rule {
	out := Rule{
		Direction:      r.Direction,
		Action:         r.Action,
		Tier:           r.Tier,
		TierPriority:   r.Priority.Tier,
		PolicyPriority: r.Priority.Policy,
		RuleIndex:      r.Priority.RuleIndex,
		Policy:         PolicyRef{Kind: string(r.Policy.Kind), Namespace: r.Policy.Namespace, Name: r.Policy.Name},
		Name:           r.RuleName,
		AnyPeer:        r.AnyPeer,
		Peers:          r.Peers,
		EnableLogging:  r.EnableLogging,
		LogLabel:       r.LogLabel,
	}
	for _, p := range r.Ports {
		out.Ports = append(out.Ports, Port(p))
	}
	return out
}

// ToCompiled converts a rule back, so that policyrules.Evaluate can
// decide what the rule does to a packet.
func (r *Rule) ToCompiled() policyrules.CompiledRule {
	out := policyrules.CompiledRule{
		Direction: r.Direction,
		Action:    r.Action,
		Priority:  policyrules.Priority{Tier: r.TierPriority, Policy: r.PolicyPriority, RuleIndex: r.RuleIndex},
		Tier:      r.Tier,
		Policy: policyrules.PolicyRef{Kind: policyrules.PolicyKind(r.Policy.Kind),
			Namespace: r.Policy.Namespace, Name: r.Policy.Name},
		RuleName:      r.Name,
		AnyPeer:       r.AnyPeer,
		Peers:         r.Peers,
		EnableLogging: r.EnableLogging,
		LogLabel:      r.LogLabel,
	}
	for _, p := range r.Ports {
		out.Ports = append(out.Ports, policyrules.Port(p))
	}
	return out
}

// ID is the rule's content address: a digest of its JSON form.
func (r *Rule) ID() RuleID {
	raw, err := json.Marshal(r)
	if err != nil {
		// A Rule holds only numbers, strings and addresses: it always marshals.
		panic("wire: marshalling a rule: " + err.Error())
	}
	sum := sha256.Sum256(raw)
	return RuleID(hex.EncodeToString(sum[:12]))
}

// Delta returns ep as an Update carries it after prev: only the bodies of
// rules prev did not have. With prev nil it returns ep itself.
func (ep *Endpoint) Delta(prev *Endpoint) Endpoint {
	out := *ep
	if prev == nil {
		return out
	}
	out.Rules = map[RuleID]Rule{}
	for _, id := range ep.Order {
		if _, had := prev.Rules[id]; !had {
			out.Rules[id] = ep.Rules[id]
		}
	}
	return out
}

// RuleList returns the endpoint's rules in enforcement order. It needs
// every body: call it on a full Endpoint (from a View).
func (ep *Endpoint) RuleList() []Rule {
	out := make([]Rule, 0, len(ep.Order))
	for _, id := range ep.Order {
		out = append(out, ep.Rules[id])
	}
	return out
}

// CompiledRules returns the endpoint's rules in enforcement order as
// policyrules.CompiledRule, for policyrules.Evaluate.
func (ep *Endpoint) CompiledRules() []policyrules.CompiledRule {
	out := make([]policyrules.CompiledRule, 0, len(ep.Order))
	for _, id := range ep.Order {
		r := ep.Rules[id]
		out = append(out, r.ToCompiled())
	}
	return out
}

// Equal reports whether two full endpoints enforce the same rules on the
// same addresses.
func (ep *Endpoint) Equal(o *Endpoint) bool {
	return ep.Name == o.Name && ep.Hash == o.Hash && slices.Equal(ep.Addresses, o.Addresses) && slices.Equal(ep.Order, o.Order)
}
