package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=fnp,categories=antreaplus
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Tier",type=string,JSONPath=`.spec.tier`
// +kubebuilder:printcolumn:name="Priority",type=number,format=float,JSONPath=`.spec.priority`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`,description="Whether every enforcement point enforces the policy."
// +kubebuilder:printcolumn:name="Resolved",type=string,JSONPath=`.status.conditions[?(@.type=="RemotePeersResolved")].status`,description="Whether every remote peer resolved to addresses."
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// FederatedNetworkPolicy is an Antrea NetworkPolicy (short name fnp) that may
// name resources of other members of the federation. It applies, like any
// namespaced Antrea NetworkPolicy, only to workloads of its own Namespace in
// this member (Pods and ExternalEntities). Its rules' peers with scope
// ClusterSet also match what other members export: remote VMs and
// cloud-native services (RemoteEntities, by their labels and their member's
// labels), and, in egress rules, federated Services (toServices with scope
// ClusterSet). A peer that would select remote Pods is refused, with a
// status that says why.
//
// AntreaPlus realises it by writing an Antrea NetworkPolicy of the same
// Namespace, named fnp-<name> and owned by this object, whose remote peers
// are ipBlocks in Groups it also writes: a stock Antrea enforces that policy
// for the member's Pods, and AntreaPlus's policy controller for its VMs (VM
// agents and cloud security groups).
type FederatedNetworkPolicy struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is an Antrea NetworkPolicy spec.
	// +required
	Spec antreav1beta1.NetworkPolicySpec `json:"spec"`

	// status is how far the policy is realised, and from which remote sources.
	// +optional
	Status FederatedNetworkPolicyStatus `json:"status,omitempty"`
}

// FederatedNetworkPolicyStatus says what a federated policy resolved to and
// where it is enforced.
type FederatedNetworkPolicyStatus struct {
	// observedGeneration is the policy generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// phase sums the status up: Pending (not translated yet, or waiting for
	// its enforcement points), Realized (every enforcement point enforces
	// the newest translation), Failed (the policy cannot be realised; see
	// conditions).
	// +optional
	Phase FederatedPolicyPhase `json:"phase,omitempty"`

	// derivedPolicy is the name of the Antrea NetworkPolicy written for it.
	// +optional
	DerivedPolicy string `json:"derivedPolicy,omitempty"`

	// enforcementPoints is the state of every place that enforces the policy.
	// +optional
	// +listType=map
	// +listMapKey=name
	EnforcementPoints []EnforcementPointStatus `json:"enforcementPoints,omitempty"`

	// remoteSources are the remote peers the policy names, what each
	// resolved to, and those it is waiting for.
	// +optional
	RemoteSources []RemoteSourceStatus `json:"remoteSources,omitempty"`

	// refusedPeers are the peers that cannot be realised, and why.
	// +optional
	RefusedPeers []RefusedPeer `json:"refusedPeers,omitempty"`

	// conditions: Translated (the derived objects are written),
	// RemotePeersResolved (every remote source resolved to addresses),
	// PeersAccepted (no peer refused), Realized (every enforcement point
	// enforces it).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// FederatedPolicyPhase sums up a federated policy's status.
// +kubebuilder:validation:Enum=Pending;Realized;Failed
type FederatedPolicyPhase string

// Phases of a federated policy.
const (
	FederatedPolicyPending  FederatedPolicyPhase = "Pending"
	FederatedPolicyRealized FederatedPolicyPhase = "Realized"
	FederatedPolicyFailed   FederatedPolicyPhase = "Failed"
)

// Condition types of a federated policy.
const (
	ConditionTranslated          = "Translated"
	ConditionRemotePeersResolved = "RemotePeersResolved"
	ConditionPeersAccepted       = "PeersAccepted"
	ConditionRealized            = "Realized"
)

// EnforcementPointStatus is the state of one enforcement point of a policy.
type EnforcementPointStatus struct {
	// name identifies the point: "antrea" (a stock Antrea enforcing the
	// derived policy for the member's Pods), "agent <namespace>/<vm>" (a VM
	// agent), or "agentless" (cloud security groups).
	// +required
	Name string `json:"name"`

	// realized is true when the point enforces the newest translation.
	// +optional
	Realized bool `json:"realized"`

	// reason is a CamelCase word for why it does not, if it does not.
	// +optional
	Reason string `json:"reason,omitempty"`

	// message says more, for humans.
	// +optional
	Message string `json:"message,omitempty"`
}

// RemoteSourceStatus is one remote peer of a federated policy.
type RemoteSourceStatus struct {
	// rule is the rule that names it: "ingress[0]" or "egress[1]", with the
	// rule's name when it has one ("egress[1]/to-db").
	// +required
	Rule string `json:"rule"`

	// kind is RemoteEntities (a peer selecting remote entities) or
	// FederatedService (a toServices entry with scope ClusterSet).
	// +required
	Kind string `json:"kind"`

	// name describes the source: the peer's selector, or the Service's
	// namespace/name.
	// +required
	Name string `json:"name"`

	// resolved is true once the source resolved to at least one address.
	// +optional
	Resolved bool `json:"resolved"`

	// clusters are the members the addresses come from.
	// +optional
	Clusters []string `json:"clusters,omitempty"`

	// addresses is how many addresses the source resolved to.
	// +optional
	Addresses int32 `json:"addresses,omitempty"`

	// message says what it is waiting for, when it is not resolved.
	// +optional
	Message string `json:"message,omitempty"`

	// unusable says, for each remote entity or address the source selects
	// that an enforcement point does not see (a private address of a
	// network not connected to the point's, an address that would name a
	// host of this member), why it is left out there and what would fix
	// it. The last line says how many more were left out.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Unusable []string `json:"unusable,omitempty"`

	// notExportedHere names the members that export what the source
	// names (entities in its Namespaces, the federated Service) but not to
	// this member, and why: their export's scope leaves this member out,
	// or this member refuses them (its ClusterMembership's spec.imports).
	// Nothing of theirs is matched. The last line says how many more.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	NotExportedHere []string `json:"notExportedHere,omitempty"`

	// sharedEgress names the egress addresses the source is matched by
	// that other hosts share (a NAT gateway): a rule admitting the source
	// admits them too.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	SharedEgress []string `json:"sharedEgress,omitempty"`
}

// RefusedPeer is a peer that cannot be realised. It matches nothing; the
// rest of its rule is realised.
type RefusedPeer struct {
	// rule is the rule of the peer, as in RemoteSourceStatus.
	// +required
	Rule string `json:"rule"`

	// peer is the index of the peer in the rule's from, to or toServices.
	// +optional
	Peer int32 `json:"peer"`

	// reason is a CamelCase word, such as RemotePodsRefused.
	// +required
	Reason string `json:"reason"`

	// message says why and what to use instead.
	// +required
	Message string `json:"message"`
}

// +kubebuilder:object:root=true

// FederatedNetworkPolicyList is a list of FederatedNetworkPolicies.
type FederatedNetworkPolicyList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the policies.
	Items []FederatedNetworkPolicy `json:"items"`
}
