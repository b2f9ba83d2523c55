package v1alpha2

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=ee,categories=antrea

// ExternalEntity is a workload that is not a Pod, such as a VM's network
// interface or a cloud service with a routable IP (short name ee). Antrea-native
// policies select ExternalEntities by label with externalEntitySelector, both
// as peers and, for agents on the external node, as what a policy applies to.
type ExternalEntity struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the entity's addresses, ports and the node that handles it.
	// +optional
	Spec ExternalEntitySpec `json:"spec,omitempty"`
}

// ExternalEntitySpec is the addresses, ports and handling node of an
// ExternalEntity.
type ExternalEntitySpec struct {
	// endpoints lists the entity's IP addresses.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	Endpoints []Endpoint `json:"endpoints,omitempty"`

	// ports lists the entity's named ports, that policy rules can match by name.
	// +optional
	// +kubebuilder:validation:MaxItems=128
	Ports []NamedPort `json:"ports,omitempty"`

	// externalNode is an opaque identifier of the agent or controller that
	// handles the entity (for example enforces policies on it).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ExternalNode string `json:"externalNode,omitempty"`
}

// Endpoint is one IP address of an ExternalEntity.
type Endpoint struct {
	// ip is an IPv4 or IPv6 address.
	// +optional
	// +kubebuilder:validation:MaxLength=45
	// +kubebuilder:validation:XValidation:rule="isIP(self)",message="endpoint ip must be a valid IPv4 or IPv6 address such as 10.0.0.5"
	IP string `json:"ip,omitempty"`

	// name identifies the endpoint, for example the VM's interface name.
	// +optional
	Name string `json:"name,omitempty"`
}

// NamedPort is a port of an ExternalEntity with a name.
type NamedPort struct {
	// protocol is TCP, UDP or SCTP. Defaults to TCP.
	// +optional
	// +kubebuilder:validation:Enum=TCP;UDP;SCTP
	Protocol corev1.Protocol `json:"protocol,omitempty"`

	// port is the port number.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`

	// name is the port's name, that a policy rule's port can refer to.
	// +optional
	Name string `json:"name,omitempty"`
}

// +kubebuilder:object:root=true

// ExternalEntityList is a list of ExternalEntities.
type ExternalEntityList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the entities.
	Items []ExternalEntity `json:"items,omitempty"`
}
