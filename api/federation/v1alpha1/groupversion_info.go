package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of the federation API.
	GroupVersion = schema.GroupVersion{Group: "federation.antreaplus.io", Version: "v1alpha1"}

	// SchemeBuilder registers every kind of this package, listed here
	// explicitly rather than from init functions.
	SchemeBuilder = (&scheme.Builder{GroupVersion: GroupVersion}).Register(
		&ClusterMembership{}, &ClusterMembershipList{},
		&MemberCluster{}, &MemberClusterList{},
		&EntityExport{}, &EntityExportList{},
		&RemoteEntity{}, &RemoteEntityList{},
		&Network{}, &NetworkList{},
	)

	// AddToScheme adds the federation types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
