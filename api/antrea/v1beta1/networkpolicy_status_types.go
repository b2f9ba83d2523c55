package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NetworkPolicyStatus is how far Antrea has enforced a NetworkPolicy or a
// ClusterNetworkPolicy on the Nodes it concerns. Antrea writes it.
type NetworkPolicyStatus struct {
	// phase sums the status up: Pending, Realizing, Realized or Failed.
	// +optional
	Phase NetworkPolicyPhase `json:"phase"`

	// observedGeneration is the policy generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration"`

	// currentNodesRealized is how many Nodes enforce the policy.
	// +optional
	CurrentNodesRealized int32 `json:"currentNodesRealized"`

	// desiredNodesRealized is how many Nodes should enforce the policy.
	// +optional
	DesiredNodesRealized int32 `json:"desiredNodesRealized"`

	// conditions are the latest observations of the policy's state.
	// +optional
	Conditions []NetworkPolicyCondition `json:"conditions"`
}

// NetworkPolicyPhase sums up a policy's status.
// +kubebuilder:validation:Enum=Pending;Realizing;Realized;Failed
type NetworkPolicyPhase string

const (
	// NetworkPolicyPending means Antrea has accepted the policy but not
	// processed it yet.
	NetworkPolicyPending NetworkPolicyPhase = "Pending"
	// NetworkPolicyRealizing means Antrea is enforcing the policy.
	NetworkPolicyRealizing NetworkPolicyPhase = "Realizing"
	// NetworkPolicyRealized means every Node concerned enforces the policy.
	NetworkPolicyRealized NetworkPolicyPhase = "Realized"
	// NetworkPolicyFailed means at least one Node failed to enforce it.
	NetworkPolicyFailed NetworkPolicyPhase = "Failed"
)

// NetworkPolicyConditionType is the type of a NetworkPolicyCondition.
type NetworkPolicyConditionType string

const (
	// NetworkPolicyConditionRealizable tells whether the policy can be
	// enforced at all, and why not.
	NetworkPolicyConditionRealizable NetworkPolicyConditionType = "Realizable"
	// NetworkPolicyConditionRealizationFailure reports a Node's failure to
	// enforce the policy.
	NetworkPolicyConditionRealizationFailure NetworkPolicyConditionType = "RealizationFailure"
)

// NetworkPolicyCondition is one observation of a policy's state.
type NetworkPolicyCondition struct {
	// type of the condition, such as Realizable.
	Type NetworkPolicyConditionType `json:"type"`

	// status of the condition: True, False or Unknown.
	Status metav1.ConditionStatus `json:"status"`

	// lastTransitionTime is when status last changed.
	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`

	// reason is a CamelCase word for the last transition.
	// +optional
	Reason string `json:"reason,omitempty"`

	// message says what happened, for humans.
	// +optional
	Message string `json:"message,omitempty"`
}
