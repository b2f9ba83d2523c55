package wire

import (
	"net/netip"

	"antreaplus.io/antreaplus/pkg/policyrules"
)

// Paths of the distribution API, served over HTTPS. Every request carries
// "Authorization: Bearer <token>"; the token alone says who the caller is.
const (
	// PathWatch streams Events as JSON lines: GET, with the query
	// parameters ParamEpoch and ParamSince to resume.
	PathWatch = "/v1/watch"
	// PathReport takes a Report of a VM agent (POST) and answers a
	// ReportResponse.
	PathReport = "/v1/report"

	// ParamEpoch is the Epoch of the last Event the client applied.
	ParamEpoch = "epoch"
	// ParamSince is the Generation of the last Event the client applied.
	ParamSince = "since"
	// ParamScope is the Scope of the client's View: the server resumes
	// only a watch of the caller's own scope.
	ParamScope = "scope"
)

// EventType says what an Event carries.
type EventType string

const (
	// EventSync replaces everything the client holds: Endpoints lists
	// every endpoint of its scope, each with every rule body.
	EventSync EventType = "Sync"
	// EventUpdate changes the endpoints it lists and removes those in
	// Deleted; every other endpoint stays as it is. Each endpoint carries
	// only the bodies of the rules that its previous version lacked.
	EventUpdate EventType = "Update"
	// EventBookmark carries no change: it tells the client that the stream
	// is alive and which generation is the newest.
	EventBookmark EventType = "Bookmark"
)

// Event is one message of a watch stream.
type Event struct {
	Type EventType `json:"type"`
	// Epoch names the server instance that numbered the generations: a
	// client that resumes with another epoch gets a Sync.
	Epoch string `json:"epoch"`
	// Generation increases with every change the server publishes, across
	// every scope; a client resumes from the last one it applied.
	Generation uint64 `json:"generation"`
	// Scope names what the stream carries (Sync only): "namespace/node"
	// for a VM agent, "*/node" for the agentless consumer.
	Scope string `json:"scope,omitempty"`
	// Endpoints are the endpoints that are new or changed (Update) or all
	// of them (Sync).
	Endpoints []Endpoint `json:"endpoints,omitempty"`
	// Deleted are the names of endpoints removed from the scope (Update).
	Deleted []string `json:"deleted,omitempty"`
	// PublishedUnixNano is when the server published the change, to
	// measure the lag to its enforcement.
	PublishedUnixNano int64 `json:"publishedUnixNano,omitempty"`
}

// RuleID names a rule by its content: two rules with the same ID are the
// same rule.
type RuleID string

// Endpoint is one enforcement point (an ExternalEntity) and its rules.
type Endpoint struct {
	// Name is the ExternalEntity's "namespace/name".
	Name string `json:"name"`
	// Addresses are the ExternalEntity's IPs: ingress rules filter traffic
	// to them, egress rules traffic from them.
	Addresses []netip.Addr `json:"addresses,omitempty"`
	// Hash is the compiler's digest of the rules.
	Hash string `json:"hash"`
	// Generation is the generation at which the endpoint last changed.
	Generation uint64 `json:"generation"`
	// Order lists the endpoint's rules in enforcement order: ingress
	// rules, then egress rules, each in Antrea's priority order.
	Order []RuleID `json:"order"`
	// Rules are rule bodies by ID: all of them in a Sync, and in an Update
	// those the endpoint's previous version did not have.
	Rules map[RuleID]Rule `json:"rules,omitempty"`
}

// PolicyRef names the policy a rule comes from.
type PolicyRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// Rule is one compiled rule, as policyrules.CompiledRule defines it.
type Rule struct {
	Direction      policyrules.Direction `json:"direction"`
	Action         policyrules.Action    `json:"action"`
	Tier           string                `json:"tier"`
	TierPriority   int32                 `json:"tierPriority"`
	PolicyPriority float64               `json:"policyPriority"`
	RuleIndex      int32                 `json:"ruleIndex"`
	Policy         PolicyRef             `json:"policy"`
	Name           string                `json:"name,omitempty"`
	// AnyPeer matches every address; Peers is then empty.
	AnyPeer bool           `json:"anyPeer,omitempty"`
	Peers   []netip.Prefix `json:"peers,omitempty"`
	// Ports are the kinds of traffic the rule matches; empty is all.
	Ports         []Port `json:"ports,omitempty"`
	EnableLogging bool   `json:"enableLogging,omitempty"`
	LogLabel      string `json:"logLabel,omitempty"`
}

// Port is one kind of traffic, as policyrules.Port defines it: 0 and 0
// are every port, -1 every ICMP or IGMP type or code.
type Port struct {
	Protocol      policyrules.Protocol `json:"protocol"`
	Port          int32                `json:"port,omitempty"`
	EndPort       int32                `json:"endPort,omitempty"`
	SourcePort    int32                `json:"sourcePort,omitempty"`
	SourceEndPort int32                `json:"sourceEndPort,omitempty"`
	ICMPType      int32                `json:"icmpType,omitempty"`
	ICMPCode      int32                `json:"icmpCode,omitempty"`
	IGMPType      int32                `json:"igmpType,omitempty"`
	GroupAddress  netip.Addr           `json:"groupAddress,omitzero"`
}

// InBaselineTier reports whether the rule is in the baseline tier, the only
// tier whose rules a Pass does not skip.
func (r *Rule) InBaselineTier() bool { return r.Tier == policyrules.TierBaseline }

// Report is what a VM agent tells the server about itself: at start, after
// every apply, and when its interfaces change.
type Report struct {
	AgentVersion string   `json:"agentVersion"`
	Hostname     string   `json:"hostname,omitempty"`
	Interfaces   []string `json:"interfaces,omitempty"`
	// AppliedEpoch and AppliedGeneration identify the rules in force.
	AppliedEpoch      string `json:"appliedEpoch,omitempty"`
	AppliedGeneration uint64 `json:"appliedGeneration,omitempty"`
	// AppliedRules is the number of compiled rules in force.
	AppliedRules int `json:"appliedRules"`
	// ApplyError is the last failure to apply newer rules, empty when the
	// newest rules received are in force.
	ApplyError string `json:"applyError,omitempty"`
	// RuleCounts are the agent's counters of every rule it ever enforced
	// (since its state file was created): totals, never increments, so a
	// report received twice or after a restart of either side is summed
	// once. Absent from agents that do not count.
	RuleCounts []RuleCount `json:"ruleCounts,omitempty"`
}

// RuleKey names one rule of a policy as counters are kept: rules that the
// compiler emits again with other peers or ports are the same rule.
type RuleKey struct {
	Policy    PolicyRef             `json:"policy"`
	Direction policyrules.Direction `json:"direction"`
	Index     int32                 `json:"index"`
	Name      string                `json:"name,omitempty"`
	Action    policyrules.Action    `json:"action"`
}

// Key returns the key the rule's traffic is counted under.
func (r *Rule) Key() RuleKey {
	return RuleKey{Policy: r.Policy, Direction: r.Direction, Index: r.RuleIndex, Name: r.Name, Action: r.Action}
}

// RuleCount is what an agent counted for one rule: the packets the rule
// decided (those of connections not established yet) and their bytes.
type RuleCount struct {
	RuleKey
	Packets uint64 `json:"packets"`
	Bytes   uint64 `json:"bytes"`
}

// ReportResponse is the server's answer to a Report.
type ReportResponse struct {
	// VirtualMachine is the "namespace/name" the caller's token stands for.
	VirtualMachine string `json:"virtualMachine"`
	// Epoch and Generation are the newest the server published.
	Epoch      string `json:"epoch"`
	Generation uint64 `json:"generation"`
	// DNSServer is the member's DNS server, host:port, as VMs reach it,
	// over TCP: agents send clusterset.local and the federation names to
	// it. Empty (or absent, from an older server) when the server offers
	// none: agents then leave the VM's resolver alone.
	DNSServer string `json:"dnsServer,omitempty"`
}

// Error is the body of every failed request.
type Error struct {
	Message string `json:"message"`
}
