package v1alpha1

// CloudProvider names a public cloud.
// +kubebuilder:validation:Enum=AWS;Azure
type CloudProvider string

const (
	// ProviderAWS is Amazon Web Services.
	ProviderAWS CloudProvider = "AWS"
	// ProviderAzure is Microsoft Azure.
	ProviderAzure CloudProvider = "Azure"
)

// EnforcementMode says how the NetworkPolicies applied to a VM are enforced.
// +kubebuilder:validation:Enum=Agentless;Agented
type EnforcementMode string

const (
	// EnforcementAgentless translates the VM's policies into the cloud's own
	// security groups (AWS security groups, Azure NSGs/ASGs).
	EnforcementAgentless EnforcementMode = "Agentless"
	// EnforcementAgented sends the VM's policies to the VM agent running on
	// the VM, which enforces them in the VM's own firewall.
	EnforcementAgented EnforcementMode = "Agented"
)

// CloudProviderAccountReference names a CloudProviderAccount.
type CloudProviderAccountReference struct {
	// name of the CloudProviderAccount.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// namespace of the CloudProviderAccount. Defaults to the namespace of the
	// referring object. An account in another namespace may be used only if
	// that account lists the referring namespace in
	// spec.allowedSelectorNamespaces.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`
}

// SecretReference names a Secret that holds cloud credentials.
type SecretReference struct {
	// name of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// namespace of the Secret. Defaults to the namespace of the
	// CloudProviderAccount. The cloud controller may be configured to refuse
	// Secrets outside the account's namespace.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`
}

// SecretKey is the name of a key in a Secret's data.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
type SecretKey string

// EntityMatch selects cloud resources by id, name and tags. Every criterion
// that is set must match (they are ANDed); within ids or names, any entry may
// match.
// +kubebuilder:validation:XValidation:rule="has(self.ids) || has(self.names) || has(self.tags)",message="a match must set at least one of ids, names or tags"
type EntityMatch struct {
	// ids are cloud resource ids, e.g. vpc-0a1b2c3d or i-0123456789abcdef0 on
	// AWS, full ARM resource ids on Azure.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=1024
	IDs []string `json:"ids,omitempty"`

	// names are cloud resource names: the Name tag on AWS, the resource name
	// on Azure.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	Names []string `json:"names,omitempty"`

	// tags must all be present on the resource with exactly these values.
	// An empty value matches only an empty tag value.
	// +optional
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=16
	Tags map[string]string `json:"tags,omitempty"`
}

// ServicePort is a port on which a cloud-native service listens.
type ServicePort struct {
	// name of the port (e.g. the load balancer listener name), if any.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`

	// protocol of the port.
	// +kubebuilder:validation:Enum=TCP;UDP;SCTP
	// +kubebuilder:default=TCP
	// +optional
	Protocol string `json:"protocol,omitempty"`

	// port number.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`
}

// Condition types and reasons shared by the kinds of this group.
const (
	// ConditionReady is True when the object is fully working.
	ConditionReady = "Ready"

	// ConditionPolicyRealized is True on a VirtualMachine, NetworkInterface or
	// CloudNativeService when every NetworkPolicy applied to it is enforced
	// (in the cloud's security groups or by the VM agent); its message says
	// which policy is not and why.
	ConditionPolicyRealized = "PolicyRealized"
)
