package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of every type in this package.
	GroupVersion = schema.GroupVersion{Group: "cloud.antreaplus.io", Version: "v1alpha1"}

	// SchemeBuilder registers every kind of this package, listed here
	// explicitly rather than from init functions.
	SchemeBuilder = (&scheme.Builder{GroupVersion: GroupVersion}).Register(
		&CloudProviderAccount{}, &CloudProviderAccountList{},
		&CloudEntitySelector{}, &CloudEntitySelectorList{},
		&VirtualMachine{}, &VirtualMachineList{},
		&NetworkInterface{}, &NetworkInterfaceList{},
		&CloudNativeService{}, &CloudNativeServiceList{},
	)

	// AddToScheme adds the types of this group and version to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
