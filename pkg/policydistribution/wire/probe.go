package wire

import (
	"net/netip"
	"time"

	"antreaplus.io/antreaplus/pkg/policyrules"
)

// PathProbes is where a VM agent takes the live probes asked of it (GET,
// answers a []ProbeRequest, waiting up to ProbeWait for one) and answers
// them (POST a ProbeResult).
const PathProbes = "/v1/probes"

// ProbeWait is how long a GET of PathProbes waits for a probe before it
// answers an empty list (below the agents' 15 s response header timeout).
const ProbeWait = 10 * time.Second

// ProbeRole says what an agent does in a live trace.
type ProbeRole string

const (
	// ProbeSend: the agent sends the flow itself (a TCP connection, or a
	// UDP datagram) and traces it through its egress rules.
	ProbeSend ProbeRole = "Send"
	// ProbeWatch: the agent traces, for Seconds, the flow arriving through
	// its ingress rules (another agent, or anything else, sends it).
	ProbeWatch ProbeRole = "Watch"
)

// ProbeRequest asks an agent to take part in a live trace.
type ProbeRequest struct {
	// ID names the probe; the result carries it back.
	ID   string    `json:"id"`
	Role ProbeRole `json:"role"`
	// Endpoint is the enforcement point traced (an ExternalEntity,
	// "namespace/name").
	Endpoint string               `json:"endpoint"`
	Protocol policyrules.Protocol `json:"protocol"`
	Port     int32                `json:"port"`
	// Peer is the other end as this VM sees it: the address Send connects
	// to, or the source address Watch expects (empty: any).
	Peer netip.Addr `json:"peer,omitzero"`
	// Seconds bounds the probe: Send's connection attempt, Watch's window.
	Seconds int32 `json:"seconds"`
}

// ObservedVerdict is what a live trace saw decide a packet.
type ObservedVerdict string

const (
	ObservedAllowed  ObservedVerdict = "Allowed"
	ObservedDropped  ObservedVerdict = "Dropped"
	ObservedRejected ObservedVerdict = "Rejected"
	// ObservedNotSeen: no traced packet reached the agent's rules.
	ObservedNotSeen ObservedVerdict = "NotSeen"
)

// Observation is what the kernel's nftables tracing saw decide the first
// traced packet in the agent's table.
type Observation struct {
	Verdict ObservedVerdict `json:"verdict"`
	// Rule is the policy rule that decided; nil when no policy rule did
	// (the chain's policy, established traffic: Note says which).
	Rule *RuleKey `json:"rule,omitempty"`
	// Packets is the number of traced packets seen.
	Packets int    `json:"packets"`
	Note    string `json:"note,omitempty"`
}

// ProbeResult is an agent's answer to a ProbeRequest.
type ProbeResult struct {
	ID          string      `json:"id"`
	Observation Observation `json:"observation"`
	// Connected is whether Send's connection was answered (TCP: the
	// handshake completed, or refused by the peer: Refused).
	Connected bool `json:"connected,omitempty"`
	Refused   bool `json:"refused,omitempty"`
	// Error is why the agent could not trace (no nftables, a bad request).
	Error string `json:"error,omitempty"`
}
