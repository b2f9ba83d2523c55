package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=pstats,categories=antreaplus
// +kubebuilder:printcolumn:name="Kind",type=string,JSONPath=`.policy.kind`
// +kubebuilder:printcolumn:name="Policy",type=string,JSONPath=`.policy.name`
// +kubebuilder:printcolumn:name="Federated",type=string,JSONPath=`.federatedPolicy`
// +kubebuilder:printcolumn:name="Packets",type=integer,JSONPath=`.traffic.packets`
// +kubebuilder:printcolumn:name="Dropped",type=integer,JSONPath=`.traffic.droppedPackets`
// +kubebuilder:printcolumn:name="Updated",type=date,JSONPath=`.updateTime`

// PolicyStats is the traffic one network policy's rules decided in this
// member, counted by the enforcement points that count (VM agents:
// nftables counters), as Antrea's NetworkPolicyStats counts it for Pods.
// The policy controller writes it; nobody else should. It lives in the
// policy's Namespace (the system Namespace for a ClusterNetworkPolicy),
// named <kind>.<policy name> in lower case, and is owned by the policy.
//
// Only packets a rule decides are counted: the agent accepts packets of
// established connections before any rule, so a rule sees the packets that
// open (or try to open) a connection. An allowed TCP connection counts one
// packet (its SYN); a dropped one counts each retransmission.
type PolicyStats struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// policy is the policy counted.
	// +required
	Policy PolicyStatsTarget `json:"policy"`

	// federatedPolicy is the FederatedNetworkPolicy the policy derives
	// from, namespace/name, when it does.
	// +optional
	FederatedPolicy string `json:"federatedPolicy,omitempty"`

	// traffic sums every rule of the policy at every enforcement point.
	// +optional
	Traffic TrafficStats `json:"traffic"`

	// rules are the counts of each rule, summed over the enforcement
	// points.
	// +optional
	// +listType=atomic
	Rules []RuleTrafficStats `json:"rules,omitempty"`

	// enforcementPoints are the counts each point reported last, so that
	// a controller that restarts sums the same totals before every agent
	// has reported again.
	// +optional
	// +listType=map
	// +listMapKey=name
	EnforcementPoints []PointTrafficStats `json:"enforcementPoints,omitempty"`

	// updateTime is when the counts last changed.
	// +optional
	UpdateTime metav1.Time `json:"updateTime,omitzero"`
}

// PolicyStatsTarget names a policy whose traffic is counted.
type PolicyStatsTarget struct {
	// kind is the compiled policy's kind: AntreaNetworkPolicy,
	// AntreaClusterNetworkPolicy or K8sNetworkPolicy.
	// +required
	Kind string `json:"kind"`

	// namespace is the policy's Namespace (empty for a cluster-wide
	// policy).
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// name is the policy's name.
	// +required
	Name string `json:"name"`
}

// TrafficStats are counters of packets and bytes.
type TrafficStats struct {
	// packets is how many packets a rule decided (allowed, passed on,
	// dropped or rejected).
	// +optional
	Packets int64 `json:"packets"`

	// bytes is the size of those packets.
	// +optional
	Bytes int64 `json:"bytes"`

	// droppedPackets is how many of them a Drop or a Reject refused.
	// +optional
	DroppedPackets int64 `json:"droppedPackets"`
}

// RuleTrafficStats are the counters of one rule.
type RuleTrafficStats struct {
	// direction is Ingress or Egress.
	// +required
	Direction string `json:"direction"`

	// index is the rule's position among the policy's rules of its
	// direction.
	// +optional
	Index int32 `json:"index"`

	// name is the rule's name, when it has one.
	// +optional
	Name string `json:"name,omitempty"`

	// action is the rule's action: Allow, Drop, Reject or Pass.
	// +required
	Action string `json:"action"`

	// traffic is what the rule decided.
	// +optional
	Traffic TrafficStats `json:"traffic"`
}

// PointTrafficStats are the counters one enforcement point reported.
type PointTrafficStats struct {
	// name identifies the point as the policy status does: "agent
	// <namespace>/<vm>".
	// +required
	Name string `json:"name"`

	// rules are the point's counts of each rule of the policy.
	// +optional
	// +listType=atomic
	Rules []RuleTrafficStats `json:"rules,omitempty"`

	// reportTime is when the point first reported these counts.
	// +optional
	ReportTime metav1.Time `json:"reportTime,omitzero"`
}

// +kubebuilder:object:root=true

// PolicyStatsList is a list of PolicyStats.
type PolicyStatsList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PolicyStats `json:"items"`
}
