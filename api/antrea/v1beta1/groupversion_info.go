package v1beta1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of Antrea's policy API.
	GroupVersion = schema.GroupVersion{Group: "crd.antrea.io", Version: "v1beta1"}

	// SchemeBuilder adds the crd.antrea.io/v1beta1 types to a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the crd.antrea.io/v1beta1 types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
