package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CloudNativeServiceSpec mirrors a cloud-native service as the cloud
// controller last polled it. Only the cloud controller writes it.
type CloudNativeServiceSpec struct {
	// provider is the cloud the service runs in.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="provider is immutable"
	Provider CloudProvider `json:"provider"`

	// accountRef names the CloudProviderAccount the service was imported
	// through.
	// +required
	AccountRef CloudProviderAccountReference `json:"accountRef"`

	// kind of service.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="kind is immutable"
	Kind CloudNativeServiceKind `json:"kind"`

	// cloudID is the service's id in the cloud: the ARN on AWS, the ARM
	// resource id on Azure.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="cloudID is immutable"
	CloudID string `json:"cloudID"`

	// cloudName is the service's name in the cloud.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	CloudName string `json:"cloudName,omitempty"`

	// region the service runs in.
	// +required
	// +kubebuilder:validation:MaxLength=64
	Region string `json:"region"`

	// vpcID is the id of the AWS VPC or Azure VNet the service is reachable
	// in.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	VPCID string `json:"vpcID,omitempty"`

	// dnsName is the DNS name the cloud gives the service, if any.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	DNSName string `json:"dnsName,omitempty"`

	// privateIPs are the addresses the service answers on inside its
	// VPC/VNet.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=45
	PrivateIPs []string `json:"privateIPs,omitempty"`

	// publicIPs are the service's public addresses, if any.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=45
	PublicIPs []string `json:"publicIPs,omitempty"`

	// ports the service listens on, where the cloud reports them (load
	// balancer listeners, database ports).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Ports []ServicePort `json:"ports,omitempty"`

	// securityGroupIDs are the ids of the security groups attached to the
	// service, where it has any.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=1024
	SecurityGroupIDs []string `json:"securityGroupIDs,omitempty"`

	// backendNetworkInterfaces are the cloud ids of the network interfaces
	// a load balancer sends its traffic to (an Azure load balancer's
	// backend pool members), where they enforce its policies.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=1024
	BackendNetworkInterfaces []string `json:"backendNetworkInterfaces,omitempty"`

	// backendPorts are the ports those interfaces receive the load
	// balancer's traffic on.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	BackendPorts []ServicePort `json:"backendPorts,omitempty"`

	// tags are the service's cloud tags, unchanged.
	// +optional
	Tags map[string]string `json:"tags,omitempty"`
}

// CloudNativeServiceStatus is what the components acting on the service
// report.
type CloudNativeServiceStatus struct {
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

// CloudNativeService is a cloud-native service (a load balancer, a managed
// database, ...) with addresses in a VPC/VNet, imported by the cloud
// controller through a CloudEntitySelector. Each becomes one ExternalEntity.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=cns,categories={antreaplus,cloud}
// +kubebuilder:printcolumn:name="Kind",type=string,JSONPath=`.spec.kind`
// +kubebuilder:printcolumn:name="Cloud Name",type=string,JSONPath=`.spec.cloudName`
// +kubebuilder:printcolumn:name="Private IPs",type=string,JSONPath=`.spec.privateIPs`
// +kubebuilder:printcolumn:name="VPC",type=string,JSONPath=`.spec.vpcID`
// +kubebuilder:printcolumn:name="Region",type=string,JSONPath=`.spec.region`
// +kubebuilder:printcolumn:name="Cloud ID",type=string,JSONPath=`.spec.cloudID`,priority=1
// +kubebuilder:printcolumn:name="DNS Name",type=string,JSONPath=`.spec.dnsName`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type CloudNativeService struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec mirrors the service in the cloud.
	// +required
	Spec CloudNativeServiceSpec `json:"spec"`

	// status is what the components acting on the service report.
	// +optional
	Status CloudNativeServiceStatus `json:"status,omitempty"`
}

// CloudNativeServiceList is a list of CloudNativeServices.
// +kubebuilder:object:root=true
type CloudNativeServiceList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the CloudNativeServices.
	Items []CloudNativeService `json:"items"`
}
