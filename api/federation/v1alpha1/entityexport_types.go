package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=eexport,categories=antreaplus
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Exported",type=integer,JSONPath=`.status.exportedEntities`,description="How many ExternalEntities the export makes visible to the federation."
// +kubebuilder:printcolumn:name="Valid",type=string,JSONPath=`.status.conditions[?(@.type=="Valid")].status`
// +kubebuilder:printcolumn:name="Reached",type=string,JSONPath=`.status.conditions[?(@.type=="Exported")].reason`,description="Where the export went: Everywhere, Scoped, or why not (Refused, UnknownClusters, InvalidScope)."
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// EntityExport makes ExternalEntities of its Namespace (cloud VMs' network
// interfaces and cloud-native services) visible to the other members of the
// federation, which import them as RemoteEntities into their Namespace of
// the same name. It is how a member's admin decides, bottom-up, what of its
// own the federation may name in federated policies. Pods are never
// exported: their addresses are not reachable from outside their cluster.
type EntityExport struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec selects what is exported.
	// +required
	Spec EntityExportSpec `json:"spec"`

	// status is what the member controller found (what it selects, whether
	// it is valid) and where the export went (written by the leader of its
	// member).
	// +optional
	Status EntityExportStatus `json:"status,omitempty"`
}

// EntityExportSpec selects the ExternalEntities of the export's Namespace
// that the federation sees.
type EntityExportSpec struct {
	// externalEntitySelector selects ExternalEntities of this Namespace by
	// label (their cloud tags are labels tag.cloud.antreaplus.io/<tag>, their
	// kind cloud.antreaplus.io/kind). An empty selector exports every
	// ExternalEntity of the Namespace.
	// +required
	ExternalEntitySelector metav1.LabelSelector `json:"externalEntitySelector"`

	// scope limits the members that import the export. Unset, every
	// member does. The exporting member is always in it.
	// +optional
	Scope *ExportScope `json:"scope,omitempty"`
}

// ExportScope is where an export may go: the members whose registry labels
// clusterSelector selects, and the members clusterIDs names (a member in
// either is reached). An export scoped to a ClusterID that is not a member
// reaches the members it can and says so in its status.
type ExportScope struct {
	// clusterSelector selects members by their registry labels (antreaplus
	// federation join --label).
	// +optional
	ClusterSelector *metav1.LabelSelector `json:"clusterSelector,omitempty"`

	// clusterIDs names members.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=1024
	// +kubebuilder:validation:items:MaxLength=128
	ClusterIDs []string `json:"clusterIDs,omitempty"`
}

// EntityExportStatus is what the member controller found of an export.
type EntityExportStatus struct {
	// observedGeneration is the export generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// exportedEntities is how many ExternalEntities the export selects.
	// +optional
	ExportedEntities int32 `json:"exportedEntities,omitempty"`

	// clusters are the members the export reaches: those in its scope that
	// do not refuse its member, its own member included, sorted by
	// ClusterID. Written by the leader of the exporting member, as the
	// importers' leaders decide (the ClusterStatus format of KEP-1645's
	// ServiceExport status.clusters).
	// +optional
	// +listType=map
	// +listMapKey=cluster
	// +kubebuilder:validation:MaxItems=4096
	Clusters []ClusterStatus `json:"clusters,omitempty"`

	// conditions: Valid (the selector parses and selects only what may be
	// exported; the member controller's) and Exported (where the export
	// went, and why not to members in its scope; the leader's).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ClusterStatus names one member an export reaches.
type ClusterStatus struct {
	// cluster is the member's ClusterID.
	// +required
	// +kubebuilder:validation:MaxLength=128
	Cluster string `json:"cluster"`
}

// EntityExportConditionValid is the condition that says whether an export
// is valid, and why not.
const EntityExportConditionValid = "Valid"

// +kubebuilder:object:root=true

// EntityExportList is a list of EntityExports.
type EntityExportList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the exports.
	Items []EntityExport `json:"items"`
}
