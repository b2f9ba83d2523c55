package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Resource is the Traceflow CRD's plural, and CRDName its name: a member
// that serves it runs Antrea's Traceflow.
const (
	Resource = "traceflows"
	CRDName  = Resource + ".crd.antrea.io"
)

// TraceflowPhase is where a Traceflow is: Running, then Succeeded or Failed.
type TraceflowPhase string

// Phases of a Traceflow.
const (
	PhaseRunning   TraceflowPhase = "Running"
	PhaseSucceeded TraceflowPhase = "Succeeded"
	PhaseFailed    TraceflowPhase = "Failed"
)

// Component is the part of Antrea's datapath that observed the packet.
type Component string

// Components of Antrea's datapath a Traceflow reports.
const (
	ComponentSpoofGuard    Component = "SpoofGuard"
	ComponentLB            Component = "LB"
	ComponentRouting       Component = "Routing"
	ComponentNetworkPolicy Component = "NetworkPolicy"
	ComponentForwarding    Component = "Forwarding"
	ComponentEgress        Component = "Egress"
)

// Action is what the component did with the packet.
type Action string

// Actions a Traceflow reports.
const (
	ActionDelivered             Action = "Delivered"
	ActionReceived              Action = "Received"
	ActionForwarded             Action = "Forwarded"
	ActionDropped               Action = "Dropped"
	ActionRejected              Action = "Rejected"
	ActionForwardedOutOfNetwork Action = "ForwardedOutOfNetwork"
	ActionMarkedForSNAT         Action = "MarkedForSNAT"
	ActionForwardedToEgressNode Action = "ForwardedToEgressNode"
)

// The component infos of a NetworkPolicy observation: the datapath table
// that decided (Antrea's OVS pipeline table names).
const (
	TableIngressRule    = "IngressRule"
	TableIngressDefault = "IngressDefaultRule"
	TableIngressMetric  = "IngressMetric"
	TableEgressRule     = "EgressRule"
	TableEgressDefault  = "EgressDefaultRule"
	TableEgressMetric   = "EgressMetric"
)

// IP protocol numbers of a Traceflow's ipHeader.protocol.
const (
	ProtocolICMP int32 = 1
	ProtocolTCP  int32 = 6
	ProtocolUDP  int32 = 17
	ProtocolSCTP int32 = 132
)

// TCPFlagSYN is the SYN flag of a TCP header's flags.
const TCPFlagSYN int32 = 2

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=traceflows,scope=Cluster,shortName=tf
// +kubebuilder:subresource:status

// Traceflow asks Antrea to trace one packet through its datapath: injected
// at a source Pod, or, with liveTraffic, the first real packet that matches.
type Traceflow struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TraceflowSpec   `json:"spec,omitempty"`
	Status TraceflowStatus `json:"status,omitempty"`
}

// TraceflowSpec is the packet to trace.
type TraceflowSpec struct {
	Source      Source      `json:"source,omitempty"`
	Destination Destination `json:"destination,omitempty"`
	Packet      Packet      `json:"packet,omitempty"`
	// LiveTraffic traces the first real packet that matches instead of
	// injecting one.
	LiveTraffic bool `json:"liveTraffic,omitempty"`
	// DroppedOnly captures a live packet only if it is dropped.
	DroppedOnly bool `json:"droppedOnly,omitempty"`
	// Timeout in seconds (Antrea's default: 20).
	Timeout int32 `json:"timeout,omitempty"`
}

// Source is where the packet comes from: a Pod, or (live traffic only) an
// address.
type Source struct {
	Namespace string `json:"namespace,omitempty"`
	Pod       string `json:"pod,omitempty"`
	IP        string `json:"ip,omitempty"`
}

// Destination is where the packet goes: a Pod, a Service or an address.
type Destination struct {
	Namespace string `json:"namespace,omitempty"`
	Pod       string `json:"pod,omitempty"`
	Service   string `json:"service,omitempty"`
	IP        string `json:"ip,omitempty"`
}

// Packet is the packet's headers.
type Packet struct {
	SrcIP           string          `json:"srcIP,omitempty"`
	DstIP           string          `json:"dstIP,omitempty"`
	Length          int32           `json:"length,omitempty"`
	IPHeader        *IPHeader       `json:"ipHeader,omitempty"`
	IPv6Header      *IPv6Header     `json:"ipv6Header,omitempty"`
	TransportHeader TransportHeader `json:"transportHeader,omitempty"`
}

// IPHeader is an IPv4 header's protocol, TTL and flags.
type IPHeader struct {
	Protocol int32 `json:"protocol,omitempty"`
	TTL      int32 `json:"ttl,omitempty"`
	Flags    int32 `json:"flags,omitempty"`
}

// IPv6Header is an IPv6 header's next header and hop limit.
type IPv6Header struct {
	NextHeader *int32 `json:"nextHeader,omitempty"`
	HopLimit   int32  `json:"hopLimit,omitempty"`
}

// TransportHeader is the packet's TCP, UDP or ICMP header.
type TransportHeader struct {
	ICMP *ICMPEchoRequestHeader `json:"icmp,omitempty"`
	UDP  *UDPHeader             `json:"udp,omitempty"`
	TCP  *TCPHeader             `json:"tcp,omitempty"`
}

// ICMPEchoRequestHeader is an ICMP echo request's id and sequence.
type ICMPEchoRequestHeader struct {
	ID       int32 `json:"id,omitempty"`
	Sequence int32 `json:"sequence,omitempty"`
}

// UDPHeader is a UDP header's ports.
type UDPHeader struct {
	SrcPort int32 `json:"srcPort,omitempty"`
	DstPort int32 `json:"dstPort,omitempty"`
}

// TCPHeader is a TCP header's ports and flags.
type TCPHeader struct {
	SrcPort int32  `json:"srcPort,omitempty"`
	DstPort int32  `json:"dstPort,omitempty"`
	Flags   *int32 `json:"flags,omitempty"`
}

// TraceflowStatus is what Antrea observed.
type TraceflowStatus struct {
	Phase TraceflowPhase `json:"phase,omitempty"`
	// Reason says why the Traceflow is in its phase (why it failed).
	Reason    string       `json:"reason,omitempty"`
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// DataplaneTag identifies the Traceflow's packets across Nodes.
	DataplaneTag int8 `json:"dataplaneTag,omitempty"`
	// Results are the observations of each Node on the way.
	Results []NodeResult `json:"results,omitempty"`
	// CapturedPacket is the packet a live-traffic Traceflow captured.
	CapturedPacket *Packet `json:"capturedPacket,omitempty"`
}

// NodeResult is what one Node observed.
type NodeResult struct {
	Node string `json:"node,omitempty"`
	// Role is the Node's: "Sender" or "Receiver".
	Role         string        `json:"role,omitempty"`
	Timestamp    int64         `json:"timestamp,omitempty"`
	Observations []Observation `json:"observations,omitempty"`
}

// Observation is one component's doing with the packet.
type Observation struct {
	Component     Component `json:"component,omitempty"`
	ComponentInfo string    `json:"componentInfo,omitempty"`
	Action        Action    `json:"action,omitempty"`
	// Pod is "namespace/name" of the Pod delivered to.
	Pod    string `json:"pod,omitempty"`
	DstMAC string `json:"dstMAC,omitempty"`
	// NetworkPolicy is the deciding policy, "Type:namespace/name" (or
	// "Type:name" for cluster-scoped policies), as Antrea names it.
	NetworkPolicy string `json:"networkPolicy,omitempty"`
	// NetworkPolicyRule is the deciding rule's name.
	NetworkPolicyRule string `json:"networkPolicyRule,omitempty"`
	Egress            string `json:"egress,omitempty"`
	TTL               int32  `json:"ttl,omitempty"`
	TranslatedSrcIP   string `json:"translatedSrcIP,omitempty"`
	TranslatedDstIP   string `json:"translatedDstIP,omitempty"`
	TunnelDstIP       string `json:"tunnelDstIP,omitempty"`
	EgressIP          string `json:"egressIP,omitempty"`
	EgressNode        string `json:"egressNode,omitempty"`
	SrcPodIP          string `json:"srcPodIP,omitempty"`
}

// +kubebuilder:object:root=true

// TraceflowList is a list of Traceflows.
type TraceflowList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Traceflow `json:"items"`
}
