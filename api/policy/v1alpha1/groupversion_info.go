package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of the federated policy API.
	GroupVersion = schema.GroupVersion{Group: "policy.antreaplus.io", Version: "v1alpha1"}

	// SchemeBuilder registers every kind of this package, listed here
	// explicitly rather than from init functions.
	SchemeBuilder = (&scheme.Builder{GroupVersion: GroupVersion}).Register(
		&FederatedNetworkPolicy{}, &FederatedNetworkPolicyList{},
	)

	// AddToScheme adds the policy types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
