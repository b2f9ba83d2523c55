package sgtranslate

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// Location is where security groups live: one VPC of one region of one
// cloud account (a CloudProviderAccount).
type Location struct {
	Account types.NamespacedName
	Region  string
	VPC     string
}

func (l Location) String() string {
	return fmt.Sprintf("%s/%s/%s", l.Account, l.Region, l.VPC)
}

// Interface is the cloud network interface of an enforcement point.
type Interface struct {
	// ID is the interface's cloud id, such as eni-0123.
	ID string
	Location
}

// Endpoint is one agentless enforcement point: an ExternalEntity and its
// rules in enforcement order.
type Endpoint struct {
	// Name is the ExternalEntity's "namespace/name".
	Name  string
	Rules []wire.Rule
	// Interface is the VM network interface of the ExternalEntity; nil
	// when it is none (a cloud-native service) or is not imported yet.
	Interface *Interface
	// Service is the cloud-native service of the ExternalEntity, when it
	// is one whose own security groups enforce its rules.
	Service *Service
	// Unplaced says why Interface and Service are nil, for the finding.
	Unplaced string
}

// Service is a cloud-native service that carries security groups: an RDS
// DB instance or cluster, an ELBv2 load balancer.
type Service struct {
	// ID is the service's cloud id (its ARN).
	ID string
	Location
	// Ports are the ports the service listens on: allowed traffic is
	// narrowed to them. Empty when the cloud reports none; the rules keep
	// their ports then. For a service enforced on its backend pool, the
	// ports the backends receive its traffic on.
	Ports []provider.Port
	// BackendPool says the service carries no group of its own (an Azure
	// load balancer): its rules are enforced on the network interfaces
	// of its backend pool, Backends (ids, in the service's VNet).
	BackendPool bool
	Backends    []string
}

// Severity says how a Finding affects the realisation of a policy.
type Severity string

const (
	// SeverityUnrealized: part of the policy is not enforced as written.
	SeverityUnrealized Severity = "Unrealized"
	// SeverityApproximated: the policy is enforced, slightly differently
	// (a Reject as a Drop).
	SeverityApproximated Severity = "Approximated"
)

// Reasons of Findings.
const (
	// ReasonDenyNotIsolated: a Drop or Reject rule of a direction without a
	// deny-all, which security groups (allow-only) cannot express.
	ReasonDenyNotIsolated = "DenyNotExpressible"
	// ReasonShadowedAllow: an Allow rule partly shadowed by an earlier
	// Drop, Reject or Pass on some of its ports only.
	ReasonShadowedAllow = "AllowPartlyShadowed"
	// ReasonPass: a Pass rule whose traffic the baseline tier may allow.
	ReasonPass = "PassNotExpressible"
	// ReasonPort: a protocol or port match security groups cannot hold.
	ReasonPort = "PortNotExpressible"
	// ReasonRejectAsDrop: a Reject rule enforced as a Drop.
	ReasonRejectAsDrop = "RejectEnforcedAsDrop"
	// ReasonNotAnInterface: the enforcement point is not a VM network
	// interface or a cloud-native service known to the inventory.
	ReasonNotAnInterface = "NotANetworkInterface"
	// ReasonEgressFromService: an egress rule applied to a cloud-native
	// service, which opens no connections its security groups govern.
	ReasonEgressFromService = "EgressFromService"
	// ReasonOnBackendPool: a load balancer's rules enforced on its backend
	// pool's interfaces, which also admits their peers to the backends
	// directly on those ports.
	ReasonOnBackendPool = "EnforcedOnBackendPool"
)

// Finding is one difference between an endpoint's rules and what its
// security group enforces.
type Finding struct {
	Endpoint string
	// Policy is the policy of the rule concerned; zero when the finding
	// concerns every policy of the endpoint.
	Policy    wire.PolicyRef
	Direction string
	// Rule names the rule: its name, or its direction and index.
	Rule     string
	Severity Severity
	Reason   string
	Message  string
}

// Result is what Translate produced.
type Result struct {
	// Specs are the security groups of every location with at least one
	// endpoint.
	Specs map[Location]provider.SecurityGroupSpec
	// Owners maps, per location, each group name, interface id and service
	// id of the specs to its endpoint, to turn a provider's Unrealized back into
	// endpoints.
	Owners map[Location]map[string]string
	// Findings are sorted by endpoint, then in rule order.
	Findings []Finding
}

// ruleLabel names a rule for people.
func ruleLabel(r *wire.Rule) string {
	if r.Name != "" {
		return r.Name
	}
	return fmt.Sprintf("%s rule %d", r.Direction, r.RuleIndex)
}
