package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=grp,categories=antrea
// +kubebuilder:subresource:status

// Group is a named set of workloads or IP blocks in one Namespace, that the
// Antrea NetworkPolicies of that Namespace refer to by name (appliedTo.group,
// from/to group) instead of repeating selectors.
type Group struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says what the group holds.
	// +optional
	Spec GroupSpec `json:"spec"`

	// status says whether Antrea has computed the members.
	// +optional
	Status GroupStatus `json:"status"`
}

// GroupSpec says what a Group or ClusterGroup holds. Set one way of selecting
// members: label selectors (podSelector or externalEntitySelector, either of
// them with namespaceSelector, or namespaceSelector alone), ipBlocks,
// serviceReference, or childGroups. Empty selects nothing.
//
// +kubebuilder:validation:XValidation:rule="(has(self.ipBlocks) ? 1 : 0) + (has(self.serviceReference) ? 1 : 0) + (has(self.childGroups) ? 1 : 0) + ((has(self.podSelector) || has(self.namespaceSelector) || has(self.externalEntitySelector)) ? 1 : 0) <= 1 && !(has(self.podSelector) && has(self.externalEntitySelector))",message="a group sets only one of: podSelector or externalEntitySelector (each optionally with namespaceSelector), namespaceSelector alone, ipBlocks, serviceReference or childGroups"
type GroupSpec struct {
	// podSelector selects Pods by label: in the Group's Namespace (Group),
	// in every Namespace (ClusterGroup), or in the Namespaces that
	// namespaceSelector selects.
	// +optional
	PodSelector *metav1.LabelSelector `json:"podSelector,omitempty"`

	// namespaceSelector selects Namespaces by label. Alone, it selects every
	// Pod in them; with podSelector or externalEntitySelector, it narrows those
	// to the Namespaces it selects.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// ipBlocks lists CIDRs the group holds. A group of ipBlocks can be a peer
	// of a rule, but not what a policy applies to.
	// +optional
	// +kubebuilder:validation:MaxItems=1024
	IPBlocks []IPBlock `json:"ipBlocks,omitempty"`

	// serviceReference makes the group hold the Pods that back this Service
	// (the Pods its selector selects).
	// +optional
	// +kubebuilder:validation:XValidation:rule="has(self.name)",message="serviceReference needs a name"
	ServiceReference *NamespacedName `json:"serviceReference,omitempty"`

	// externalEntitySelector selects ExternalEntities by label, in the same
	// Namespaces that podSelector would.
	// +optional
	ExternalEntitySelector *metav1.LabelSelector `json:"externalEntitySelector,omitempty"`

	// childGroups names other groups (Groups of the same Namespace for a
	// Group, ClusterGroups for a ClusterGroup) whose members this group holds.
	// A child group cannot have children itself.
	// +optional
	// +kubebuilder:validation:MaxItems=256
	ChildGroups []ClusterGroupReference `json:"childGroups,omitempty"`
}

// ClusterGroupReference is the name of a group.
// +kubebuilder:validation:MaxLength=253
type ClusterGroupReference string

// GroupStatus says whether Antrea has computed a group's members.
type GroupStatus struct {
	// conditions are the latest observations of the group's state.
	// +optional
	Conditions []GroupCondition `json:"conditions,omitempty"`
}

// GroupConditionType is the type of a GroupCondition.
type GroupConditionType string

// GroupMembersComputed is True once Antrea has computed the group's members.
const GroupMembersComputed GroupConditionType = "GroupMembersComputed"

// GroupCondition is one observation of a group's state.
type GroupCondition struct {
	// type of the condition, such as GroupMembersComputed.
	Type GroupConditionType `json:"type"`

	// status of the condition: True, False or Unknown.
	Status metav1.ConditionStatus `json:"status"`

	// lastTransitionTime is when status last changed.
	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
}

// +kubebuilder:object:root=true

// GroupList is a list of Groups.
type GroupList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the groups.
	Items []Group `json:"items,omitempty"`
}
