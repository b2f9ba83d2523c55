package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CloudEntitySelectorSpec says which resources of one account to import into
// the selector's namespace.
// +kubebuilder:validation:XValidation:rule="has(self.virtualMachines) || has(self.cloudNativeServices)",message="a selector must select virtualMachines or cloudNativeServices"
type CloudEntitySelectorSpec struct {
	// accountRef names the CloudProviderAccount to import from. An account has
	// at most one selector. It cannot be changed; create a new selector
	// instead.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="accountRef is immutable"
	AccountRef CloudProviderAccountReference `json:"accountRef"`

	// virtualMachines selects VMs. A VM is imported if any entry matches it;
	// the first matching entry, in list order, sets its enforcement mode.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	VirtualMachines []VirtualMachineMatch `json:"virtualMachines,omitempty"`

	// cloudNativeServices selects cloud-native services (load balancers,
	// managed databases, ...). A service is imported if any entry matches it.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	CloudNativeServices []CloudNativeServiceMatch `json:"cloudNativeServices,omitempty"`
}

// VirtualMachineMatch selects VMs by the VPC/VNet they are in and by their
// own id, name or tags. When both vpcMatch and vmMatch are set, a VM must
// match both.
// +kubebuilder:validation:XValidation:rule="has(self.vpcMatch) || has(self.vmMatch)",message="each virtualMachines entry must set at least one of vpcMatch or vmMatch"
type VirtualMachineMatch struct {
	// vpcMatch selects the VMs in the matching AWS VPCs or Azure VNets.
	// +optional
	VPCMatch *EntityMatch `json:"vpcMatch,omitempty"`

	// vmMatch selects VMs by their own id, name or tags.
	// +optional
	VMMatch *EntityMatch `json:"vmMatch,omitempty"`

	// enforcementMode of the selected VMs: Agentless (the cloud's security
	// groups) or Agented (a VM agent on the VM).
	// +optional
	// +kubebuilder:default=Agentless
	EnforcementMode EnforcementMode `json:"enforcementMode,omitempty"`
}

// CloudNativeServiceKind is a kind of cloud-native service that can be
// imported.
// +kubebuilder:validation:Enum=AWSLoadBalancer;AWSRDS;AzureLoadBalancer;AzureSQL
type CloudNativeServiceKind string

const (
	// ServiceKindAWSLoadBalancer is an Elastic Load Balancing v2 load
	// balancer (Application, Network or Gateway).
	ServiceKindAWSLoadBalancer CloudNativeServiceKind = "AWSLoadBalancer"
	// ServiceKindAWSRDS is an RDS DB instance or DB cluster (Aurora).
	ServiceKindAWSRDS CloudNativeServiceKind = "AWSRDS"
	// ServiceKindAzureLoadBalancer is an Azure Load Balancer (its frontend IP
	// configurations).
	ServiceKindAzureLoadBalancer CloudNativeServiceKind = "AzureLoadBalancer"
	// ServiceKindAzureSQL is an Azure SQL server or managed instance, reached
	// through its private endpoints or VNet.
	ServiceKindAzureSQL CloudNativeServiceKind = "AzureSQL"
)

// CloudNativeServiceMatch selects cloud-native services. Every criterion that
// is set must match.
// +kubebuilder:validation:XValidation:rule="has(self.kinds) || has(self.vpcMatch) || has(self.serviceMatch)",message="each cloudNativeServices entry must set at least one of kinds, vpcMatch or serviceMatch"
type CloudNativeServiceMatch struct {
	// kinds of service to select. Unset selects every kind the account's
	// provider supports. Kinds of another provider never match.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Kinds []CloudNativeServiceKind `json:"kinds,omitempty"`

	// vpcMatch selects the services in the matching AWS VPCs or Azure VNets.
	// +optional
	VPCMatch *EntityMatch `json:"vpcMatch,omitempty"`

	// serviceMatch selects services by their own id, name or tags.
	// +optional
	ServiceMatch *EntityMatch `json:"serviceMatch,omitempty"`
}

// Condition types and reasons of a CloudEntitySelector.
const (
	// SelectorConditionAccepted is True when the account exists, allows this
	// selector's namespace, and is bound to this selector.
	SelectorConditionAccepted = "Accepted"
	// SelectorConditionInventorySynced is True when the imported objects
	// match the last successful poll of the account.
	SelectorConditionInventorySynced = "InventorySynced"

	// SelectorReasonAccountNotFound: the referenced account does not exist.
	SelectorReasonAccountNotFound = "AccountNotFound"
	// SelectorReasonNamespaceNotAllowed: the account is in another namespace
	// and does not list this one in spec.allowedSelectorNamespaces.
	SelectorReasonNamespaceNotAllowed = "NamespaceNotAllowed"
	// SelectorReasonAccountInUse: another selector is already bound to the
	// account.
	SelectorReasonAccountInUse = "AccountInUse"
	// SelectorReasonProviderMismatch: a kind in cloudNativeServices belongs to
	// another provider than the account's.
	SelectorReasonProviderMismatch = "ProviderMismatch"
	// SelectorReasonAccepted: the selector is bound to its account.
	SelectorReasonAccepted = "Accepted"
)

// CloudEntitySelectorStatus is what the cloud controller made of the
// selector.
type CloudEntitySelectorStatus struct {
	// observedGeneration is the metadata.generation this status was computed
	// from.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready, Accepted and InventorySynced.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// virtualMachines is the number of VirtualMachines imported.
	// +optional
	VirtualMachines int32 `json:"virtualMachines,omitempty"`

	// networkInterfaces is the number of NetworkInterfaces imported.
	// +optional
	NetworkInterfaces int32 `json:"networkInterfaces,omitempty"`

	// cloudNativeServices is the number of CloudNativeServices imported.
	// +optional
	CloudNativeServices int32 `json:"cloudNativeServices,omitempty"`
}

// CloudEntitySelector selects the VMs and cloud-native services of one
// CloudProviderAccount to import into its namespace, and chooses how
// NetworkPolicies are enforced on each selected VM.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=ces,categories={antreaplus,cloud}
// +kubebuilder:printcolumn:name="Account",type=string,JSONPath=`.spec.accountRef.name`
// +kubebuilder:printcolumn:name="Accepted",type=string,JSONPath=`.status.conditions[?(@.type=="Accepted")].status`
// +kubebuilder:printcolumn:name="Synced",type=string,JSONPath=`.status.conditions[?(@.type=="InventorySynced")].status`
// +kubebuilder:printcolumn:name="VMs",type=integer,JSONPath=`.status.virtualMachines`
// +kubebuilder:printcolumn:name="Services",type=integer,JSONPath=`.status.cloudNativeServices`
// +kubebuilder:printcolumn:name="Account Namespace",type=string,JSONPath=`.spec.accountRef.namespace`,priority=1
// +kubebuilder:printcolumn:name="NICs",type=integer,JSONPath=`.status.networkInterfaces`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type CloudEntitySelector struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says what to import.
	// +required
	Spec CloudEntitySelectorSpec `json:"spec"`

	// status is what the cloud controller made of the selector.
	// +optional
	Status CloudEntitySelectorStatus `json:"status,omitempty"`
}

// CloudEntitySelectorList is a list of CloudEntitySelectors.
// +kubebuilder:object:root=true
type CloudEntitySelectorList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the CloudEntitySelectors.
	Items []CloudEntitySelector `json:"items"`
}
