package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=cg,categories=antrea
// +kubebuilder:subresource:status

// ClusterGroup is a cluster-wide named set of workloads or IP blocks, that
// Antrea ClusterNetworkPolicies refer to by name (appliedTo.group, from/to
// group) instead of repeating selectors. It has the same spec as a Group.
type ClusterGroup struct {
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

// +kubebuilder:object:root=true

// ClusterGroupList is a list of ClusterGroups.
type ClusterGroupList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the groups.
	Items []ClusterGroup `json:"items,omitempty"`
}
