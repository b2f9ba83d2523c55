// Package scheme builds the runtime.Scheme every AntreaPlus client uses: the
// Kubernetes built-in types, the project's API groups and the Multi-Cluster
// Services API.
package scheme

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	mcsv1alpha1 "sigs.k8s.io/mcs-api/pkg/apis/v1alpha1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	tfv1beta1 "antreaplus.io/antreaplus/api/antrea/traceflow/v1beta1"
	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// New returns a scheme holding every type AntreaPlus reads or writes.
func New() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme,
		apiextensionsv1.AddToScheme,
		federationv1alpha1.AddToScheme,
		antreav1beta1.AddToScheme,
		antreav1alpha2.AddToScheme,
		tfv1beta1.AddToScheme,
		cloudv1alpha1.AddToScheme,
		policyv1alpha1.AddToScheme,
		externaldnsv1alpha1.AddToScheme,
		mcsv1alpha1.Install,
		mcsv1beta1.Install,
	} {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("building scheme: %w", err)
		}
	}
	return s, nil
}
