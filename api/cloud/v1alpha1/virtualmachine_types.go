package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// VirtualMachineState is the lifecycle state of a VM, normalised across
// clouds.
// +kubebuilder:validation:Enum=Pending;Running;Stopping;Stopped;ShuttingDown;Terminated;Unknown
type VirtualMachineState string

const (
	// VMStatePending: the VM is being created or started.
	VMStatePending VirtualMachineState = "Pending"
	// VMStateRunning: the VM is running.
	VMStateRunning VirtualMachineState = "Running"
	// VMStateStopping: the VM is being stopped (Azure: or deallocated).
	VMStateStopping VirtualMachineState = "Stopping"
	// VMStateStopped: the VM is stopped (Azure: or deallocated).
	VMStateStopped VirtualMachineState = "Stopped"
	// VMStateShuttingDown: the VM is being terminated (Azure: deleted).
	VMStateShuttingDown VirtualMachineState = "ShuttingDown"
	// VMStateTerminated: the VM is terminated; its object is deleted soon.
	VMStateTerminated VirtualMachineState = "Terminated"
	// VMStateUnknown: the cloud reported a state not listed here.
	VMStateUnknown VirtualMachineState = "Unknown"
)

// VirtualMachineSpec mirrors a cloud VM as the cloud controller last polled
// it. Only the cloud controller writes it; every change in the cloud is one
// write and bumps metadata.generation.
type VirtualMachineSpec struct {
	// provider is the cloud the VM runs in.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="provider is immutable"
	Provider CloudProvider `json:"provider"`

	// accountRef names the CloudProviderAccount the VM was imported through.
	// +required
	AccountRef CloudProviderAccountReference `json:"accountRef"`

	// cloudID is the VM's id in the cloud: the instance id on AWS, the ARM
	// resource id on Azure.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="cloudID is immutable"
	CloudID string `json:"cloudID"`

	// cloudName is the VM's name in the cloud: the Name tag on AWS, the VM
	// name on Azure. Not unique.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	CloudName string `json:"cloudName,omitempty"`

	// region the VM runs in, e.g. us-east-1 or eastus.
	// +required
	// +kubebuilder:validation:MaxLength=64
	Region string `json:"region"`

	// zone is the availability zone of the VM, if any.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Zone string `json:"zone,omitempty"`

	// vpcID is the id of the AWS VPC or Azure VNet the VM's primary network
	// interface is in.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	VPCID string `json:"vpcID,omitempty"`

	// instanceType is the cloud's machine size, e.g. t3.micro or
	// Standard_B1s.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	InstanceType string `json:"instanceType,omitempty"`

	// state is the VM's lifecycle state.
	// +required
	State VirtualMachineState `json:"state"`

	// tags are the VM's cloud tags, unchanged (ExternalEntity labels are
	// derived from them).
	// +optional
	Tags map[string]string `json:"tags,omitempty"`

	// networkInterfaces are the names of the VM's NetworkInterface objects,
	// in this namespace, primary first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=253
	NetworkInterfaces []string `json:"networkInterfaces,omitempty"`

	// enforcementMode is how NetworkPolicies are enforced on this VM, as
	// chosen by the CloudEntitySelector entry that selected it.
	// +required
	EnforcementMode EnforcementMode `json:"enforcementMode"`
}

// Condition types and reasons of a VirtualMachine, besides PolicyRealized.
const (
	// VMConditionAgentConnected is True when the VM agent of an agented VM
	// is registered and connected to the control plane.
	VMConditionAgentConnected = "AgentConnected"
)

// VirtualMachineStatus is what the components acting on the VM report: policy
// enforcement, and the VM agent through the control plane it connects to.
type VirtualMachineStatus struct {
	// observedGeneration is the metadata.generation this status was computed
	// from.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: PolicyRealized, and AgentConnected for agented VMs.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// agent is what the VM agent of an agented VM last reported. It is written
	// by the control plane the agent is connected to, never by the agent
	// itself.
	// +optional
	Agent *VirtualMachineAgentStatus `json:"agent,omitempty"`
}

// VirtualMachineAgentStatus is what a VM agent reports about itself.
type VirtualMachineAgentStatus struct {
	// version of the VM agent.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Version string `json:"version,omitempty"`

	// appliedPolicyGeneration is the generation of the VM's policy set that
	// the agent last applied.
	// +optional
	AppliedPolicyGeneration int64 `json:"appliedPolicyGeneration,omitempty"`

	// interfaces are the names of the network interfaces the agent found on
	// the VM.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=64
	Interfaces []string `json:"interfaces,omitempty"`
}

// VirtualMachine is a cloud VM imported by the cloud controller through a
// CloudEntitySelector. Users read it; the cloud controller creates, updates
// and deletes it as the cloud changes.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=cvm,categories={antreaplus,cloud}
// +kubebuilder:printcolumn:name="Cloud Name",type=string,JSONPath=`.spec.cloudName`
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.spec.state`
// +kubebuilder:printcolumn:name="VPC",type=string,JSONPath=`.spec.vpcID`
// +kubebuilder:printcolumn:name="Region",type=string,JSONPath=`.spec.region`
// +kubebuilder:printcolumn:name="Mode",type=string,JSONPath=`.spec.enforcementMode`
// +kubebuilder:printcolumn:name="Policy",type=string,JSONPath=`.status.conditions[?(@.type=="PolicyRealized")].status`
// +kubebuilder:printcolumn:name="Cloud ID",type=string,JSONPath=`.spec.cloudID`,priority=1
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.provider`,priority=1
// +kubebuilder:printcolumn:name="Agent",type=string,JSONPath=`.status.conditions[?(@.type=="AgentConnected")].status`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type VirtualMachine struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec mirrors the VM in the cloud.
	// +required
	Spec VirtualMachineSpec `json:"spec"`

	// status is what the components acting on the VM report.
	// +optional
	Status VirtualMachineStatus `json:"status,omitempty"`
}

// VirtualMachineList is a list of VirtualMachines.
// +kubebuilder:object:root=true
type VirtualMachineList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the VirtualMachines.
	Items []VirtualMachine `json:"items"`
}
