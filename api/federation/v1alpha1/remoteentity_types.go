package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels every RemoteEntity carries, besides the labels of the exported
// ExternalEntity. An exporting member cannot set them: labels of the source
// under these prefixes are dropped, so that one member cannot pass its
// entities off as another's.
const (
	// LabelSourceCluster is the clusterID of the member that exported the entity.
	LabelSourceCluster = "federation.antreaplus.io/source-cluster"
	// MemberLabelPrefix prefixes the labels of the exporting member (its
	// MemberCluster labels, such as region=eu) on its remote entities:
	// member.federation.antreaplus.io/region=eu. A prefixed member label
	// (topology.kubernetes.io/region) keeps the part after the slash.
	MemberLabelPrefix = "member.federation.antreaplus.io/"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=rent,categories=antreaplus
// +kubebuilder:printcolumn:name="Source",type=string,JSONPath=`.spec.sourceCluster`,description="The member that exported the entity."
// +kubebuilder:printcolumn:name="Kind",type=string,JSONPath=`.spec.kind`
// +kubebuilder:printcolumn:name="IP",type=string,JSONPath=`.spec.endpoints[0].ip`,description="The first address; the others are in spec.endpoints."
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// RemoteEntity is an ExternalEntity of another member (a cloud VM's network
// interface or a cloud-native service) that the member exported with an
// EntityExport. The leader of this member writes it, in the Namespace of the
// same name, labelled with the exported entity's labels, the source cluster
// and the source member's labels. It is a kind of its own, not an
// ExternalEntity, so that only federated policies (FederatedNetworkPolicy
// peers with scope ClusterSet) ever match it; ordinary Antrea policies and
// Antrea itself never see it.
type RemoteEntity struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the exported entity as its member last showed it.
	// +required
	Spec RemoteEntitySpec `json:"spec"`
}

// RemoteEntitySpec is what a member exported of one ExternalEntity.
type RemoteEntitySpec struct {
	// sourceCluster is the clusterID of the exporting member.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	SourceCluster string `json:"sourceCluster"`

	// sourceName is the ExternalEntity's name in the exporting member, in
	// the Namespace of the same name as this one.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	SourceName string `json:"sourceName"`

	// kind is the kind of cloud resource: VirtualMachine or CloudNativeService.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind,omitempty"`

	// endpoints are the entity's IP addresses (private and public).
	// +optional
	// +kubebuilder:validation:MaxItems=64
	Endpoints []RemoteEndpoint `json:"endpoints,omitempty"`

	// ports are the entity's named ports.
	// +optional
	// +kubebuilder:validation:MaxItems=128
	Ports []RemotePort `json:"ports,omitempty"`

	// network is the network the entity's private addresses belong to
	// (the exporting member's name for it: aws.<vpc>, azure.<vnet>, ...);
	// empty when its member does not know it.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Network string `json:"network,omitempty"`

	// addresses classify the entity's addresses: private (with their
	// network), public, and egress (the source addresses its traffic
	// carries into networks not flat-connected to its own: a NAT
	// gateway's or its own public IP). A federated policy uses, at each
	// enforcement point, only those that point sees. Unset when the
	// exporting member does not classify them: then only endpoints outside
	// the private and special-purpose ranges are used, as public.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=128
	Addresses []EntityAddress `json:"addresses,omitempty"`
}

// RemoteEndpoint is one IP address of a RemoteEntity.
type RemoteEndpoint struct {
	// ip is an IPv4 or IPv6 address.
	// +required
	// +kubebuilder:validation:MaxLength=45
	// +kubebuilder:validation:XValidation:rule="isIP(self)",message="endpoint ip must be a valid IPv4 or IPv6 address such as 10.0.0.5"
	IP string `json:"ip"`

	// name identifies the endpoint, for example the interface.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`
}

// RemotePort is a named port of a RemoteEntity.
type RemotePort struct {
	// protocol is TCP, UDP or SCTP.
	// +optional
	// +kubebuilder:validation:Enum=TCP;UDP;SCTP
	Protocol string `json:"protocol,omitempty"`

	// port is the port number.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`

	// name is the port's name.
	// +optional
	// +kubebuilder:validation:MaxLength=15
	Name string `json:"name,omitempty"`
}

// +kubebuilder:object:root=true

// RemoteEntityList is a list of RemoteEntities.
type RemoteEntityList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the entities.
	Items []RemoteEntity `json:"items"`
}
