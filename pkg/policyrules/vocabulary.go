package policyrules

import "cmp"

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

// Names of the tiers Antrea creates itself. A policy that names no tier is
// in the application tier.
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

// Compare orders references by kind, Namespace and name: -1, 0 or +1.
func (r PolicyRef) Compare(o PolicyRef) int {
	return cmp.Or(cmp.Compare(r.Kind, o.Kind), cmp.Compare(r.Namespace, o.Namespace), cmp.Compare(r.Name, o.Name))
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
