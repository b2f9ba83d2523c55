package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Priorities of the Tiers that Antrea creates itself. Custom Tiers take a
// priority below DefaultTierPriority: 250 to 255 are reserved.
const (
	// DefaultTierPriority is the priority of the "application" Tier, the Tier
	// of policies that name none; it is enforced last before Kubernetes
	// NetworkPolicies.
	DefaultTierPriority = int32(250)
	// BaselineTierPriority is the priority of the "baseline" Tier, enforced
	// after Kubernetes NetworkPolicies.
	BaselineTierPriority = int32(253)
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=tr,categories=antrea
// +kubebuilder:printcolumn:name="Priority",type=integer,JSONPath=`.spec.priority`,description="The priority of the Tier relative to other Tiers."
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(self.spec) || self.spec.priority < 250 || self.spec.priority > 255 || (self.metadata.name == 'application' && self.spec.priority == 250) || (self.metadata.name == 'baseline' && self.spec.priority == 253)",message="Tier priorities 250 to 255 are reserved: only Antrea's own tiers application (250) and baseline (253) use them; pick a priority below 250",fieldPath=`.spec.priority`

// Tier is a layer of Antrea-native policies (short name tr). Tiers are
// enforced from the lowest priority value to the highest; within a Tier,
// policies are enforced by their own priority. No two Tiers share a
// priority. Antrea creates emergency (50), securityops (100), networkops
// (150), platform (200), application (250) and baseline (253).
type Tier struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the Tier's order and description.
	// +required
	Spec TierSpec `json:"spec"`
}

// TierSpec is the order and description of a Tier.
type TierSpec struct {
	// priority orders the Tier among all Tiers, from 0 (enforced first) to 255.
	// +required
	// +kubebuilder:validation:XValidation:rule="self >= 0 && self <= 255",message="Tier priority must be between 0 and 255"
	Priority int32 `json:"priority"`

	// description says what the Tier is for.
	// +optional
	Description string `json:"description,omitempty"`
}

// +kubebuilder:object:root=true

// TierList is a list of Tiers.
type TierList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the Tiers.
	Items []Tier `json:"items"`
}
