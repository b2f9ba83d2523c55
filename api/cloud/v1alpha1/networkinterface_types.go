package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NetworkInterfaceSpec mirrors a VM's cloud network interface as the cloud
// controller last polled it. Only the cloud controller writes it.
type NetworkInterfaceSpec struct {
	// provider is the cloud the interface is in.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="provider is immutable"
	Provider CloudProvider `json:"provider"`

	// cloudID is the interface's id in the cloud: the ENI id on AWS, the ARM
	// resource id on Azure.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="cloudID is immutable"
	CloudID string `json:"cloudID"`

	// virtualMachine is the name of the VirtualMachine object, in this
	// namespace, the interface is attached to. It is also the interface's
	// owner.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	VirtualMachine string `json:"virtualMachine"`

	// primary is true for the VM's primary interface (AWS device index 0,
	// Azure primary NIC).
	// +optional
	Primary bool `json:"primary,omitempty"`

	// region the interface is in.
	// +required
	// +kubebuilder:validation:MaxLength=64
	Region string `json:"region"`

	// vpcID is the id of the AWS VPC or Azure VNet the interface is in.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	VPCID string `json:"vpcID,omitempty"`

	// subnetID is the id of the subnet the interface is in.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	SubnetID string `json:"subnetID,omitempty"`

	// macAddress is the interface's MAC address, lowercase and
	// colon-separated.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	MACAddress string `json:"macAddress,omitempty"`

	// privateIPs are the interface's private IPv4 and IPv6 addresses, primary
	// first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=45
	PrivateIPs []string `json:"privateIPs,omitempty"`

	// publicIPs are the public (elastic) IP addresses associated with the
	// interface.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=45
	PublicIPs []string `json:"publicIPs,omitempty"`

	// egressIPs are the addresses the interface's traffic leaves with
	// toward networks not flat-connected to its own: the public IPs of the
	// NAT gateway its subnet routes through (natGatewayID), else its own
	// public IPs. Empty when its traffic cannot leave its network (no
	// public IP, no NAT gateway).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=45
	EgressIPs []string `json:"egressIPs,omitempty"`

	// natGatewayID is the id of the NAT gateway the interface's subnet
	// routes outbound traffic through, if any: every interface behind it
	// shares its egressIPs.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	NATGatewayID string `json:"natGatewayID,omitempty"`

	// securityGroupIDs are the ids of the security groups attached to the
	// interface: AWS security groups; on Azure the interface's network
	// security group and the application security groups of its IP
	// configurations.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=1024
	SecurityGroupIDs []string `json:"securityGroupIDs,omitempty"`

	// tags are the interface's own cloud tags, unchanged.
	// +optional
	Tags map[string]string `json:"tags,omitempty"`
}

// NetworkInterfaceStatus is what the components acting on the interface
// report.
type NetworkInterfaceStatus struct {
	// observedGeneration is the metadata.generation this status was computed
	// from.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: PolicyRealized.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// NetworkInterface is a network interface of an imported VirtualMachine. Each
// becomes one ExternalEntity.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=cnic,categories={antreaplus,cloud}
// +kubebuilder:printcolumn:name="VM",type=string,JSONPath=`.spec.virtualMachine`
// +kubebuilder:printcolumn:name="Private IPs",type=string,JSONPath=`.spec.privateIPs`
// +kubebuilder:printcolumn:name="VPC",type=string,JSONPath=`.spec.vpcID`
// +kubebuilder:printcolumn:name="Subnet",type=string,JSONPath=`.spec.subnetID`
// +kubebuilder:printcolumn:name="Cloud ID",type=string,JSONPath=`.spec.cloudID`,priority=1
// +kubebuilder:printcolumn:name="Public IPs",type=string,JSONPath=`.spec.publicIPs`,priority=1
// +kubebuilder:printcolumn:name="MAC",type=string,JSONPath=`.spec.macAddress`,priority=1
// +kubebuilder:printcolumn:name="Security Groups",type=string,JSONPath=`.spec.securityGroupIDs`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type NetworkInterface struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec mirrors the interface in the cloud.
	// +required
	Spec NetworkInterfaceSpec `json:"spec"`

	// status is what the components acting on the interface report.
	// +optional
	Status NetworkInterfaceStatus `json:"status,omitempty"`
}

// NetworkInterfaceList is a list of NetworkInterfaces.
// +kubebuilder:object:root=true
type NetworkInterfaceList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the NetworkInterfaces.
	Items []NetworkInterface `json:"items"`
}
