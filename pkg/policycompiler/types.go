package policycompiler

import (
	"cmp"
	"net/netip"
)

// Direction says which traffic a rule filters, seen from the enforcement
// point: Ingress is traffic to it, Egress traffic from it.
type Direction string

const (
	// DirectionIngress filters traffic to the enforcement point; the peer is the source.
	DirectionIngress Direction = "Ingress"
	// DirectionEgress filters traffic from the enforcement point; the peer is the destination.
	DirectionEgress Direction = "Egress"
)

// Action is what a rule does with the traffic it matches.
type Action string

const (
	// ActionAllow lets the traffic through.
	ActionAllow Action = "Allow"
	// ActionDrop discards the traffic silently.
	ActionDrop Action = "Drop"
	// ActionReject discards the traffic and answers the client (TCP RST or
	// ICMP administratively prohibited).
	ActionReject Action = "Reject"
	// ActionPass skips every later rule that is not in the baseline tier:
	// Kubernetes NetworkPolicies would decide next, and they never select an
	// ExternalEntity, so the baseline tier decides, then DefaultAction.
	ActionPass Action = "Pass"
)

// DefaultAction is the fate of traffic that no rule decides. Antrea-native
// policies do not isolate what they apply to, and Kubernetes NetworkPolicies
// select Pods only, so an ExternalEntity is never isolated by default.
const DefaultAction = ActionAllow

// Protocol is the protocol a Port matches.
type Protocol string

// Protocols a rule can match.
const (
	ProtocolTCP  Protocol = "TCP"
	ProtocolUDP  Protocol = "UDP"
	ProtocolSCTP Protocol = "SCTP"
	// ProtocolICMP matches ICMP for IPv4 peers and ICMPv6 for IPv6 peers.
	ProtocolICMP Protocol = "ICMP"
	ProtocolIGMP Protocol = "IGMP"
)

// AnyType is the value of Port.ICMPType, Port.ICMPCode and Port.IGMPType
// that matches every type or code.
const AnyType int32 = -1

// Names and priorities of the tiers Antrea creates itself. A policy that
// names no tier is in the application tier.
const (
	TierEmergency   = "emergency"
	TierSecurityOps = "securityops"
	TierNetworkOps  = "networkops"
	TierPlatform    = "platform"
	TierApplication = "application"
	TierBaseline    = "baseline"
)

// PolicyKind is the kind of Antrea-native policy a rule comes from, spelled
// as Antrea spells it in its logs and internal API.
type PolicyKind string

const (
	// KindNetworkPolicy is a namespaced Antrea NetworkPolicy.
	KindNetworkPolicy PolicyKind = "AntreaNetworkPolicy"
	// KindClusterNetworkPolicy is an Antrea ClusterNetworkPolicy.
	KindClusterNetworkPolicy PolicyKind = "AntreaClusterNetworkPolicy"
)

// PolicyRef names a policy. Namespace is empty for a ClusterNetworkPolicy.
type PolicyRef struct {
	Kind      PolicyKind
	Namespace string
	Name      string
}

// String returns "Kind:namespace/name" or "Kind:name".
func (r PolicyRef) String() string {
	if r.Namespace == "" {
		return string(r.Kind) + ":" + r.Name
	}
	return string(r.Kind) + ":" + r.Namespace + "/" + r.Name
}

func comparePolicyRefs(a, b PolicyRef) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

// Priority is the place of a rule in Antrea's order: rules are enforced by
// tier priority, then policy priority, then their index in the policy's
// ingress or egress list, lowest first.
type Priority struct {
	Tier      int32
	Policy    float64
	RuleIndex int32
}

// Compare returns -1, 0 or +1 when p is enforced before, together with, or
// after o.
func (p Priority) Compare(o Priority) int {
	return cmp.Or(cmp.Compare(p.Tier, o.Tier), cmp.Compare(p.Policy, o.Policy), cmp.Compare(p.RuleIndex, o.RuleIndex))
}

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

	// split orders the rules one policy rule becomes when its named ports
	// resolve to different numbers on different peers.
	split int32
	hash  uint64
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
	// Generation increases, across all endpoints of one Compiler, every
	// time an endpoint's rules change.
	Generation uint64
}

// NamedPort is a port of a Pod or an ExternalEntity that rules can match by
// name.
type NamedPort struct {
	Name     string
	Protocol Protocol
	Port     int32
}

// Namespace is the part of a Kubernetes Namespace the compiler needs.
type Namespace struct {
	Name   string
	Labels map[string]string
}

// Pod is the part of a local Kubernetes Pod the compiler needs: Pods are
// peers of rules, never enforcement points.
type Pod struct {
	Namespace      string
	Name           string
	Labels         map[string]string
	ServiceAccount string
	IPs            []netip.Addr
	Ports          []NamedPort
}
