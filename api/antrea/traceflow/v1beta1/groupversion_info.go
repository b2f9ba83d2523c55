package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version of Antrea's Traceflow API.
	GroupVersion = schema.GroupVersion{Group: "crd.antrea.io", Version: "v1beta1"}

	// SchemeBuilder adds the kinds of this package to a scheme: apimachinery's
	// builder, with the kinds listed in addKnownTypes rather than registered
	// from init functions, so that the package links no controller framework.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the Traceflow kinds to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes registers every kind of the package and the meta types of
// its group version (list options, watch events).
func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion,
		&Traceflow{}, &TraceflowList{},
	)
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
