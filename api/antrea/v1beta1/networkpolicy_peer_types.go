package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NetworkPolicyPeer selects the other end of the traffic a rule matches: the
// sources of an ingress rule (from) or the destinations of an egress rule (to).
//
// A peer selects in one way only: with label selectors (podSelector and/or
// externalEntitySelector, narrowed by namespaceSelector or namespaces), or
// with an ipBlock, a group, a serviceAccount, a nodeSelector or an fqdn.
// A rule that needs several of these lists several peers.
//
// +kubebuilder:validation:XValidation:rule="!has(self.ipBlock) || !(has(self.podSelector) || has(self.namespaceSelector) || has(self.namespaces) || has(self.externalEntitySelector) || has(self.group) || has(self.serviceAccount) || has(self.nodeSelector) || has(self.fqdn))",message="a peer that sets ipBlock must not set podSelector, namespaceSelector, namespaces, externalEntitySelector, group, serviceAccount, nodeSelector or fqdn: use one peer per selector"
// +kubebuilder:validation:XValidation:rule="(has(self.group) ? 1 : 0) + (has(self.serviceAccount) ? 1 : 0) + (has(self.nodeSelector) ? 1 : 0) + (has(self.fqdn) ? 1 : 0) + ((has(self.podSelector) || has(self.namespaceSelector) || has(self.namespaces) || has(self.externalEntitySelector)) ? 1 : 0) <= 1",message="a peer sets only one of: label selectors (podSelector, namespaceSelector, namespaces, externalEntitySelector), group, serviceAccount, nodeSelector or fqdn"
// +kubebuilder:validation:XValidation:rule="!(has(self.namespaces) && has(self.namespaceSelector))",message="namespaces and namespaceSelector cannot both be set in a peer"
// +kubebuilder:validation:XValidation:rule="!(has(self.podSelector) && has(self.externalEntitySelector))",message="podSelector and externalEntitySelector cannot both be set in a peer"
type NetworkPolicyPeer struct {
	// ipBlock matches the IP addresses of a CIDR, minus its exceptions.
	// It is meant for addresses outside the cluster: Pod IPs change.
	// +optional
	IPBlock *IPBlock `json:"ipBlock,omitempty"`

	// podSelector selects Pods by label. Alone, it selects Pods in the
	// policy's Namespace (NetworkPolicy) or in every Namespace
	// (ClusterNetworkPolicy); with namespaceSelector or namespaces, it selects
	// Pods in the Namespaces these select.
	// +optional
	PodSelector *metav1.LabelSelector `json:"podSelector,omitempty"`

	// namespaceSelector selects Namespaces by label. Alone, it selects every
	// Pod in them; with podSelector or externalEntitySelector, it narrows
	// those to the Namespaces it selects.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// namespaces selects Namespaces relative to the workloads the rule applies
	// to, for example the same Namespace as each of them.
	// Only ClusterNetworkPolicy rules may use it.
	// +optional
	Namespaces *PeerNamespaces `json:"namespaces,omitempty"`

	// externalEntitySelector selects ExternalEntities (VMs and other non-Pod
	// workloads) by label, in the same Namespaces that podSelector would.
	// +optional
	ExternalEntitySelector *metav1.LabelSelector `json:"externalEntitySelector,omitempty"`

	// group names a Group (in a NetworkPolicy) or a ClusterGroup (in a
	// ClusterNetworkPolicy) whose members are the peer.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Group string `json:"group,omitempty"`

	// fqdn matches destinations by DNS name: an exact name such as
	// "example.com" or a pattern with the wildcard "*" such as "*.example.com".
	// Only egress rules may use it.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-0-9a-zA-Z.*]+$`
	FQDN string `json:"fqdn,omitempty"`

	// serviceAccount selects the Pods that run as this ServiceAccount.
	// +optional
	// +kubebuilder:validation:XValidation:rule="has(self.name) && has(self.__namespace__)",message="serviceAccount needs both name and namespace"
	ServiceAccount *NamespacedName `json:"serviceAccount,omitempty"`

	// nodeSelector selects Nodes by label: the peer is the Nodes' own IPs.
	// +optional
	NodeSelector *metav1.LabelSelector `json:"nodeSelector,omitempty"`

	// scope widens the label selectors of an ingress peer to the whole
	// ClusterSet (multi-cluster) when set to ClusterSet. Defaults to Cluster.
	// +optional
	Scope PeerScope `json:"scope,omitempty"`
}

// AppliedTo selects the workloads a policy, or one of its rules, is enforced on.
//
// An entry selects in one way only: with label selectors (podSelector and/or
// externalEntitySelector, narrowed by namespaceSelector), or with a group, a
// serviceAccount, a service or a nodeSelector.
//
// +kubebuilder:validation:XValidation:rule="(has(self.group) ? 1 : 0) + (has(self.serviceAccount) ? 1 : 0) + (has(self.service) ? 1 : 0) + (has(self.nodeSelector) ? 1 : 0) + ((has(self.podSelector) || has(self.namespaceSelector) || has(self.externalEntitySelector)) ? 1 : 0) <= 1",message="an appliedTo entry sets only one of: label selectors (podSelector, namespaceSelector, externalEntitySelector), group, serviceAccount, service or nodeSelector"
// +kubebuilder:validation:XValidation:rule="!(has(self.podSelector) && has(self.externalEntitySelector))",message="podSelector and externalEntitySelector cannot both be set in an appliedTo entry"
type AppliedTo struct {
	// podSelector selects Pods by label, in the policy's Namespace
	// (NetworkPolicy) or in every Namespace (ClusterNetworkPolicy), or in the
	// Namespaces namespaceSelector selects.
	// +optional
	PodSelector *metav1.LabelSelector `json:"podSelector,omitempty"`

	// namespaceSelector selects Namespaces by label: alone, every Pod in them.
	// Only ClusterNetworkPolicy may use it.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// externalEntitySelector selects ExternalEntities by label, in the same
	// Namespaces that podSelector would.
	// +optional
	ExternalEntitySelector *metav1.LabelSelector `json:"externalEntitySelector,omitempty"`

	// group names a Group (in a NetworkPolicy) or a ClusterGroup (in a
	// ClusterNetworkPolicy) whose members the policy applies to.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Group string `json:"group,omitempty"`

	// serviceAccount selects the Pods that run as this ServiceAccount.
	// +optional
	// +kubebuilder:validation:XValidation:rule="has(self.name) && has(self.__namespace__)",message="serviceAccount needs both name and namespace"
	ServiceAccount *NamespacedName `json:"serviceAccount,omitempty"`

	// service selects a NodePort Service: the policy then filters traffic to
	// it. Only ingress rules, or policies with only ingress rules, may use it.
	// +optional
	// +kubebuilder:validation:XValidation:rule="has(self.name) && has(self.__namespace__)",message="service needs both name and namespace"
	Service *NamespacedName `json:"service,omitempty"`

	// nodeSelector selects Nodes by label: the policy then filters the
	// Nodes' own traffic.
	// +optional
	NodeSelector *metav1.LabelSelector `json:"nodeSelector,omitempty"`
}

// PeerNamespaces selects Namespaces relative to the Namespace of each workload
// the rule applies to. Set one of its fields.
// +kubebuilder:validation:XValidation:rule="!(has(self.match) && has(self.sameLabels))",message="set only one of namespaces.match and namespaces.sameLabels"
type PeerNamespaces struct {
	// match: Self selects the Namespace of the workload the rule applies to.
	// +optional
	Match NamespaceMatchType `json:"match,omitempty"`

	// sameLabels selects the Namespaces that have the same values as the
	// workload's Namespace for all of these label keys.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=317
	SameLabels []string `json:"sameLabels,omitempty"`
}

// NamespaceMatchType is how a peer's Namespaces relate to the workload's own.
// +kubebuilder:validation:Enum=Self
type NamespaceMatchType string

// NamespaceMatchSelf selects the Namespace of the workload the rule applies to.
const NamespaceMatchSelf NamespaceMatchType = "Self"

// PeerScope is how far a peer's label selectors reach.
// +kubebuilder:validation:Enum=Cluster;ClusterSet
type PeerScope string

const (
	// ScopeCluster limits selectors to the local cluster.
	ScopeCluster PeerScope = "Cluster"
	// ScopeClusterSet extends selectors to every cluster of the ClusterSet.
	ScopeClusterSet PeerScope = "ClusterSet"
)

// IPBlock is a CIDR, such as "10.0.0.0/16" or "fd00::/64", minus the CIDRs
// listed in except.
//
// +kubebuilder:validation:XValidation:rule="!has(self.except) || !isCIDR(self.cidr) || self.except.all(e, !isCIDR(e) || cidr(self.cidr).containsCIDR(e))",message="each ipBlock.except entry must be a CIDR inside ipBlock.cidr"
type IPBlock struct {
	// cidr is the block, as an IPv4 or IPv6 CIDR.
	// +required
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="ipBlock.cidr must be a valid CIDR such as 10.0.0.0/16"
	CIDR string `json:"cidr"`

	// except lists CIDRs inside cidr that the block does not match.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=43
	// +kubebuilder:validation:items:XValidation:rule="isCIDR(self)",message="each ipBlock.except entry must be a valid CIDR such as 10.0.1.0/24"
	Except []string `json:"except,omitempty"`
}

// NamespacedName refers to an object in a Namespace.
type NamespacedName struct {
	// name of the object.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`

	// namespace of the object.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`
}
