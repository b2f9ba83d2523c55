package v1alpha1

// The cloud's wire vocabulary: the labels the cloud controller puts on what
// it imports and on the ExternalEntities it writes (docs/cloud.md).

// Well-known labels the cloud controller puts on the objects it imports, so
// that they can be listed by account and selector.
const (
	// LabelAccountName is the name of the CloudProviderAccount an object was
	// imported through.
	LabelAccountName = "cloud.antreaplus.io/account-name"
	// LabelAccountNamespace is the namespace of that CloudProviderAccount.
	LabelAccountNamespace = "cloud.antreaplus.io/account-namespace"
	// LabelSelectorName is the name of the CloudEntitySelector that imported
	// an object (in the object's own namespace).
	LabelSelectorName = "cloud.antreaplus.io/selector-name"
	// LabelVirtualMachine is, on a NetworkInterface, the name of its
	// VirtualMachine object.
	LabelVirtualMachine = "cloud.antreaplus.io/virtual-machine"
)

// Labels of an ExternalEntity the cloud controller writes, besides the
// labels of the cloud tags.
const (
	// LabelPrefix prefixes every label of the cloud controller.
	LabelPrefix = "cloud.antreaplus.io/"
	// LabelEntityKind is the kind of entity: EntityKindVirtualMachine or
	// EntityKindCloudNativeService.
	LabelEntityKind = LabelPrefix + "kind"
	// LabelEntityName is the name of the VirtualMachine or
	// CloudNativeService object.
	LabelEntityName = LabelPrefix + "name"
	// LabelEntityNamespace is its namespace.
	LabelEntityNamespace = LabelPrefix + "namespace"
	// LabelEntityVPC is the VPC or VNet id.
	LabelEntityVPC = LabelPrefix + "vpc"
	// LabelEntityRegion is the cloud region.
	LabelEntityRegion = LabelPrefix + "region"
	// LabelEntityNetworkInterface is the NetworkInterface object of a VM's
	// entity.
	LabelEntityNetworkInterface = LabelPrefix + "network-interface"
	// LabelEntityServiceKind is the kind of a cloud-native service
	// (database, load balancer).
	LabelEntityServiceKind = LabelPrefix + "service-kind"
)

// Kinds of entity, the values of LabelEntityKind.
const (
	EntityKindVirtualMachine     = "VirtualMachine"
	EntityKindCloudNativeService = "CloudNativeService"
)
