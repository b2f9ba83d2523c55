package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of ExternalDNS's DNSEndpoint API.
	GroupVersion = schema.GroupVersion{Group: "externaldns.k8s.io", Version: "v1alpha1"}

	// SchemeBuilder adds the externaldns.k8s.io/v1alpha1 types to a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the externaldns.k8s.io/v1alpha1 types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
