package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Rule is one ingress or egress rule of an Antrea-native policy. Traffic to or
// from the workloads the rule applies to matches the rule when it matches all
// of the rule's criteria (peers, ports and protocols); the rule's action then
// decides its fate. Rules are evaluated in the order they are listed.
//
// +kubebuilder:validation:XValidation:rule="!has(self.toServices) || size(self.toServices) == 0 || ((!has(self.to) || size(self.to) == 0) && (!has(self.ports) || size(self.ports) == 0) && (!has(self.protocols) || size(self.protocols) == 0))",message="toServices cannot be used together with to, ports or protocols"
// +kubebuilder:validation:XValidation:rule="!has(self.l7Protocols) || size(self.l7Protocols) == 0 || !has(self.action) || self.action == 'Allow'",message="l7Protocols can only be used in rules whose action is Allow"
// +kubebuilder:validation:XValidation:rule="!has(self.l7Protocols) || size(self.l7Protocols) == 0 || !has(self.toServices) || size(self.toServices) == 0",message="l7Protocols cannot be used together with toServices"
// +kubebuilder:validation:XValidation:rule="!has(self.protocols) || !self.protocols.exists(p, has(p.igmp)) || !has(self.action) || self.action == 'Allow' || self.action == 'Drop'",message="IGMP rules only support the Allow and Drop actions"
// +kubebuilder:validation:XValidation:rule="!has(self.protocols) || !self.protocols.exists(p, has(p.igmp)) || (self.protocols.all(p, has(p.igmp)) && (!has(self.ports) || size(self.ports) == 0) && (!has(self.from) || size(self.from) == 0) && (!has(self.to) || size(self.to) == 0) && (!has(self.toServices) || size(self.toServices) == 0))",message="an IGMP rule cannot also set ports, from, to, toServices or other protocols"
type Rule struct {
	// action is what happens to matching traffic: Allow, Drop, Reject (drop
	// and tell the client), or Pass (skip the remaining Antrea-native policies
	// of this tier and below, and let Kubernetes NetworkPolicies decide).
	// +required
	Action *RuleAction `json:"action"`

	// ports lists the ports and L4 protocols the rule matches. When neither
	// ports nor protocols is set, the rule matches every port.
	// +optional
	// +kubebuilder:validation:MaxItems=128
	Ports []NetworkPolicyPort `json:"ports,omitempty"`

	// protocols lists non-port protocols (ICMP, IGMP) the rule matches.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Protocols []NetworkPolicyProtocol `json:"protocols,omitempty"`

	// l7Protocols lists application protocols (HTTP, TLS) the rule matches.
	// Traffic matching the rule's other criteria is handed to an L7 engine
	// and allowed only if it also matches one of these; so an L7 rule must be
	// an Allow rule, and no rule after it is reached for that traffic.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	L7Protocols []L7Protocol `json:"l7Protocols,omitempty"`

	// from lists the sources of an ingress rule. Empty matches every source.
	// +optional
	// +kubebuilder:validation:MaxItems=50
	From []NetworkPolicyPeer `json:"from,omitempty"`

	// to lists the destinations of an egress rule. Empty, with toServices also
	// empty, matches every destination.
	// +optional
	// +kubebuilder:validation:MaxItems=50
	To []NetworkPolicyPeer `json:"to,omitempty"`

	// toServices lists the Services (ClusterIP, or multi-cluster with scope
	// ClusterSet) an egress rule matches traffic to.
	// +optional
	// +kubebuilder:validation:MaxItems=128
	ToServices []PeerService `json:"toServices,omitempty"`

	// name identifies the rule; it must be unique within the policy. Antrea
	// generates one when it is empty.
	// +optional
	Name string `json:"name,omitempty"`

	// enableLogging makes the agents log the traffic that matches the rule.
	// +optional
	EnableLogging bool `json:"enableLogging"`

	// logLabel is a free label written in the log lines of this rule.
	// +optional
	// +kubebuilder:validation:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$`
	LogLabel string `json:"logLabel,omitempty"`

	// appliedTo selects the workloads this rule applies to. Either every rule
	// of a policy sets it and the policy's spec.appliedTo is empty, or none does.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	AppliedTo []AppliedTo `json:"appliedTo,omitempty"`
}

// RuleAction is what a rule does with the traffic it matches.
// +kubebuilder:validation:Enum=Allow;Drop;Reject;Pass
type RuleAction string

const (
	// RuleActionAllow lets matching traffic through.
	RuleActionAllow RuleAction = "Allow"
	// RuleActionDrop silently discards matching traffic.
	RuleActionDrop RuleAction = "Drop"
	// RuleActionReject discards matching traffic and answers the client
	// (TCP RST, or ICMP unreachable).
	RuleActionReject RuleAction = "Reject"
	// RuleActionPass skips the remaining Antrea-native policies and lets
	// Kubernetes NetworkPolicies decide. Not allowed in the baseline tier.
	RuleActionPass RuleAction = "Pass"
)

// NetworkPolicyPort is a destination port or port range, optionally with a
// source port range, of one L4 protocol.
//
// +kubebuilder:validation:XValidation:rule="!has(self.port) || type(self.port) == string || (self.port >= 1 && self.port <= 65535)",message="port must be a number between 1 and 65535 or a named port"
// +kubebuilder:validation:XValidation:rule="!has(self.endPort) || (has(self.port) && type(self.port) == int)",message="endPort can only be set together with a numerical port"
// +kubebuilder:validation:XValidation:rule="!has(self.endPort) || !has(self.port) || type(self.port) != int || self.endPort >= self.port",message="endPort must be greater than or equal to port"
// +kubebuilder:validation:XValidation:rule="!has(self.sourceEndPort) || has(self.sourcePort)",message="sourceEndPort can only be set together with sourcePort"
// +kubebuilder:validation:XValidation:rule="!has(self.sourceEndPort) || !has(self.sourcePort) || self.sourceEndPort >= self.sourcePort",message="sourceEndPort must be greater than or equal to sourcePort"
type NetworkPolicyPort struct {
	// protocol is TCP, UDP or SCTP. Defaults to TCP.
	// +optional
	// +kubebuilder:validation:Enum=TCP;UDP;SCTP
	Protocol *corev1.Protocol `json:"protocol,omitempty"`

	// port is a port number, or the name of a container port (of a Pod) or
	// of a named port (of an ExternalEntity). Unset matches every port.
	// +optional
	Port *intstr.IntOrString `json:"port,omitempty"`

	// endPort ends the range that starts at port, inclusive. It needs a
	// numerical port.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	EndPort *int32 `json:"endPort,omitempty"`

	// sourcePort is the first source port matched. Unset matches every
	// source port.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	SourcePort *int32 `json:"sourcePort,omitempty"`

	// sourceEndPort ends the source port range, inclusive. It needs sourcePort.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	SourceEndPort *int32 `json:"sourceEndPort,omitempty"`
}

// NetworkPolicyProtocol is a protocol without ports. Set exactly one field.
// +kubebuilder:validation:XValidation:rule="has(self.icmp) != has(self.igmp)",message="a protocols entry sets exactly one of icmp or igmp"
type NetworkPolicyProtocol struct {
	// icmp matches ICMP (or ICMPv6) traffic.
	// +optional
	ICMP *ICMPProtocol `json:"icmp,omitempty"`

	// igmp matches IGMP traffic: membership queries in ingress rules,
	// membership reports in egress rules.
	// +optional
	IGMP *IGMPProtocol `json:"igmp,omitempty"`
}

// ICMPProtocol matches ICMP messages by type and code. An unset field matches
// every value.
type ICMPProtocol struct {
	// icmpType is the ICMP type, for example 8 for an echo request.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=255
	ICMPType *int32 `json:"icmpType,omitempty"`

	// icmpCode is the ICMP code.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=255
	ICMPCode *int32 `json:"icmpCode,omitempty"`
}

// IGMP message types that IGMPProtocol.IGMPType may hold.
const (
	// IGMPQuery is a membership query; ingress rules match it.
	IGMPQuery int32 = 0x11
	// IGMPReportV1 is a version 1 membership report; egress rules match it.
	IGMPReportV1 int32 = 0x12
	// IGMPReportV2 is a version 2 membership report; egress rules match it.
	IGMPReportV2 int32 = 0x16
	// IGMPReportV3 is a version 3 membership report; egress rules match it.
	IGMPReportV3 int32 = 0x22
)

// IGMPProtocol matches IGMP messages by type and multicast group.
type IGMPProtocol struct {
	// igmpType is 17 (0x11, query) in an ingress rule, and 18, 22 or 34
	// (0x12, 0x16, 0x22: v1, v2, v3 reports) in an egress rule. Unset
	// matches every type allowed in that direction.
	// +optional
	// +kubebuilder:validation:Enum=17;18;22;34
	IGMPType *int32 `json:"igmpType,omitempty"`

	// groupAddress is the multicast group. Empty matches every group.
	// +optional
	// +kubebuilder:validation:MaxLength=45
	// +kubebuilder:validation:XValidation:rule="isIP(self) && (cidr('224.0.0.0/4').containsIP(self) || cidr('ff00::/8').containsIP(self))",message="igmp.groupAddress must be a multicast IP address such as 224.0.0.251"
	GroupAddress string `json:"groupAddress,omitempty"`
}

// L7Protocol is an application protocol a rule matches. Set exactly one field.
// +kubebuilder:validation:XValidation:rule="has(self.http) != has(self.tls)",message="an l7Protocols entry sets exactly one of http or tls"
type L7Protocol struct {
	// http matches HTTP requests.
	// +optional
	HTTP *HTTPProtocol `json:"http,omitempty"`

	// tls matches TLS handshakes.
	// +optional
	TLS *TLSProtocol `json:"tls,omitempty"`
}

// HTTPProtocol matches HTTP requests by host, method and path. An unset field
// matches every value.
type HTTPProtocol struct {
	// host is the host of the request URI or Host header, without port.
	// +optional
	Host string `json:"host,omitempty"`

	// method is the request method.
	// +optional
	// +kubebuilder:validation:Enum=GET;POST;PUT;HEAD;DELETE;TRACE;OPTIONS;CONNECT;PATCH
	Method string `json:"method,omitempty"`

	// path is the request path, such as "/admin".
	// +optional
	Path string `json:"path,omitempty"`
}

// TLSProtocol matches TLS handshakes by server name.
type TLSProtocol struct {
	// sni is the server name of the client hello. Unset matches every name.
	// +optional
	SNI string `json:"sni,omitempty"`
}

// PeerService refers to a Service that an egress rule's toServices matches:
// a local Service, or with scope ClusterSet a multi-cluster Service exported
// under that name.
type PeerService struct {
	// name of the Service.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`

	// namespace of the Service. Defaults to the policy's Namespace in a
	// NetworkPolicy; required in a ClusterNetworkPolicy.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`

	// scope is Cluster (default) or ClusterSet.
	// +optional
	Scope PeerScope `json:"scope,omitempty"`
}
