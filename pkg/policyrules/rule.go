package policyrules

import "net/netip"

// Port is one kind of traffic a rule matches. For TCP, UDP and SCTP, Port
// and EndPort bound the destination ports (0 and 0: every port) and
// SourcePort and SourceEndPort the source ports (0 and 0: every port). For
// ICMP, ICMPType and ICMPCode select the messages; for IGMP, IGMPType and
// GroupAddress (zero: every group). AnyType matches every type or code.
type Port struct {
	Protocol      Protocol
	Port          int32
	EndPort       int32
	SourcePort    int32
	SourceEndPort int32
	ICMPType      int32
	ICMPCode      int32
	IGMPType      int32
	GroupAddress  netip.Addr
}

// CompiledRule is one rule an enforcement point enforces. Peers and Ports are
// shared between enforcement points and must not be modified.
type CompiledRule struct {
	Direction Direction
	Action    Action
	Priority  Priority
	// Tier is the name of the rule's tier; see InBaselineTier.
	Tier     string
	Policy   PolicyRef
	RuleName string
	// AnyPeer is true when the rule matches every source (ingress) or
	// destination (egress); Peers is then empty.
	AnyPeer bool
	// Peers are the sources (ingress) or destinations (egress) the rule
	// matches, sorted, without overlaps, adjacent blocks merged.
	Peers []netip.Prefix
	// Ports are the kinds of traffic the rule matches; empty is every kind.
	Ports         []Port
	EnableLogging bool
	LogLabel      string
}

// InBaselineTier reports whether the rule is in the baseline tier, the only
// tier whose rules a Pass does not skip.
func (r *CompiledRule) InBaselineTier() bool { return r.Tier == TierBaseline }

// EndpointRules is everything one enforcement point (an ExternalEntity) must
// enforce: its ingress rules in enforcement order, then its egress rules in
// enforcement order.
type EndpointRules struct {
	// Endpoint is the ExternalEntity's "namespace/name".
	Endpoint string
	// ExternalNode is the ExternalEntity's spec.externalNode: the VM or
	// agent that enforces the rules.
	ExternalNode string
	Rules        []CompiledRule
	// Hash is a digest of ExternalNode and Rules: equal hashes, equal rules.
	Hash string
	// Generation increases, across all endpoints of one compiler, every
	// time an endpoint's rules change.
	Generation uint64
}
