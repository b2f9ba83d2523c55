package v1alpha2

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of Antrea's ExternalEntity API.
	GroupVersion = schema.GroupVersion{Group: "crd.antrea.io", Version: "v1alpha2"}

	// SchemeBuilder adds the crd.antrea.io/v1alpha2 types to a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the crd.antrea.io/v1alpha2 types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
