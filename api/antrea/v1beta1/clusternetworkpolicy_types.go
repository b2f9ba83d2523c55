package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=acnp,categories=antrea
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Tier",type=string,JSONPath=`.spec.tier`,description="The Tier the policy belongs to."
// +kubebuilder:printcolumn:name="Priority",type=number,format=float,JSONPath=`.spec.priority`,description="The priority of the policy within its Tier."
// +kubebuilder:printcolumn:name="Desired Nodes",type=number,format=int32,JSONPath=`.status.desiredNodesRealized`,description="The number of Nodes that should enforce the policy."
// +kubebuilder:printcolumn:name="Current Nodes",type=number,format=int32,JSONPath=`.status.currentNodesRealized`,description="The number of Nodes that enforce the policy."
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// ClusterNetworkPolicy is an Antrea ClusterNetworkPolicy (short name acnp): a
// cluster-wide policy for cluster admins, with the same rules as an Antrea
// NetworkPolicy, that may apply to workloads in any Namespace and to Nodes.
type ClusterNetworkPolicy struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the policy.
	// +required
	Spec ClusterNetworkPolicySpec `json:"spec"`

	// status is how far Antrea has enforced the policy.
	// +optional
	Status NetworkPolicyStatus `json:"status"`
}

// ClusterNetworkPolicySpec is the desired behaviour of an Antrea
// ClusterNetworkPolicy. It has the fields of NetworkPolicySpec; its appliedTo
// and peers may also use namespaceSelector, namespaces, service and
// nodeSelector.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.appliedTo) && size(self.appliedTo) > 0 && ((has(self.ingress) && self.ingress.exists(r, has(r.appliedTo) && size(r.appliedTo) > 0)) || (has(self.egress) && self.egress.exists(r, has(r.appliedTo) && size(r.appliedTo) > 0))))",message="appliedTo must be set either in spec or in the rules, not in both"
// +kubebuilder:validation:XValidation:rule="(has(self.appliedTo) && size(self.appliedTo) > 0) || (((has(self.ingress) && size(self.ingress) > 0) || (has(self.egress) && size(self.egress) > 0)) && (!has(self.ingress) || self.ingress.all(r, has(r.appliedTo) && size(r.appliedTo) > 0)) && (!has(self.egress) || self.egress.all(r, has(r.appliedTo) && size(r.appliedTo) > 0)))",message="set appliedTo in spec, or in every rule when spec.appliedTo is empty"
// +kubebuilder:validation:XValidation:rule="!has(self.ingress) || self.ingress.all(r, (!has(r.to) || size(r.to) == 0) && (!has(r.toServices) || size(r.toServices) == 0))",message="ingress rules select sources with from: to and toServices are only for egress rules"
// +kubebuilder:validation:XValidation:rule="!has(self.egress) || self.egress.all(r, !has(r.from) || size(r.from) == 0)",message="egress rules select destinations with to: from is only for ingress rules"
// +kubebuilder:validation:XValidation:rule="!has(self.ingress) || self.ingress.all(r, !has(r.from) || r.from.all(p, !has(p.fqdn)))",message="fqdn peers are only allowed in egress rules"
// +kubebuilder:validation:XValidation:rule="!has(self.ingress) || self.ingress.all(r, !has(r.protocols) || r.protocols.all(p, !has(p.igmp) || !has(p.igmp.igmpType) || p.igmp.igmpType == 17))",message="IGMP in ingress rules only matches igmpType 17 (membership query)"
// +kubebuilder:validation:XValidation:rule="!has(self.egress) || self.egress.all(r, !has(r.protocols) || r.protocols.all(p, !has(p.igmp) || !has(p.igmp.igmpType) || p.igmp.igmpType in [18, 22, 34]))",message="IGMP in egress rules only matches igmpType 18, 22 or 34 (membership reports)"
// +kubebuilder:validation:XValidation:rule="!has(self.tier) || self.tier.lowerAscii() != 'baseline' || ((!has(self.ingress) || self.ingress.all(r, !has(r.action) || r.action != 'Pass')) && (!has(self.egress) || self.egress.all(r, !has(r.action) || r.action != 'Pass')))",message="the Pass action cannot be used in policies of the baseline tier"
// +kubebuilder:validation:XValidation:rule="(!has(self.appliedTo) || !self.appliedTo.exists(a, has(a.service)) || !has(self.egress) || size(self.egress) == 0) && (!has(self.egress) || self.egress.all(r, !has(r.appliedTo) || !r.appliedTo.exists(a, has(a.service))))",message="appliedTo.service only applies to ingress traffic: it cannot be used in egress rules, nor in spec.appliedTo of a policy with egress rules"
type ClusterNetworkPolicySpec struct {
	// tier is the name of the Tier the policy belongs to. Policies are
	// enforced Tier by Tier, in the order of the Tiers' priorities. Defaults
	// to the "application" Tier, enforced right before Kubernetes
	// NetworkPolicies. The legacy capitalised names of Antrea's static tiers
	// (Emergency, SecurityOps, NetworkOps, Platform, Application, Baseline)
	// are accepted too.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.lowerAscii().matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="tier must be the name of a Tier: letters, digits, '-' and '.', starting and ending with a letter or digit, such as securityops"
	Tier string `json:"tier,omitempty"`

	// priority orders the policy among the policies of its Tier, from 1.0
	// (enforced first) to 10000.0. Policies of equal priority are enforced in
	// no defined order.
	// +required
	// +kubebuilder:validation:XValidation:rule="self >= 1.0 && self <= 10000.0",message="priority must be between 1.0 and 10000.0"
	Priority float64 `json:"priority"`

	// appliedTo selects the workloads, in any Namespace, that the policy
	// applies to. When empty, every rule sets its own appliedTo.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	AppliedTo []AppliedTo `json:"appliedTo,omitempty"`

	// ingress lists the rules for traffic to the workloads, in order.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	Ingress []Rule `json:"ingress,omitempty"`

	// egress lists the rules for traffic from the workloads, in order.
	// +optional
	// +kubebuilder:validation:MaxItems=100
	Egress []Rule `json:"egress,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterNetworkPolicyList is a list of Antrea ClusterNetworkPolicies.
type ClusterNetworkPolicyList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the policies.
	Items []ClusterNetworkPolicy `json:"items"`
}
