package framework

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"

	"antreaplus.io/antreaplus/internal/crdinstall"
	"antreaplus.io/antreaplus/pkg/sandbox"
)

// InstallDNSEndpointCRD installs ExternalDNS's DNSEndpoint CRD in the
// cluster of cfg, as installing ExternalDNS does, and waits until it is
// served. The CRD is ExternalDNS v0.22.0's own, copied unchanged
// (pkg/sandbox/crds, which 'antreaplus sandbox up --external-dns' installs
// too); the project ships no copy of it: it comes with ExternalDNS.
func InstallDNSEndpointCRD(t testing.TB, cfg *rest.Config) {
	t.Helper()
	crd, err := sandbox.DNSEndpointCRD()
	if err != nil {
		t.Fatal(err)
	}
	if err := crdinstall.Install(t.Context(), cfg, []*apiextensionsv1.CustomResourceDefinition{crd}); err != nil {
		t.Fatal(err)
	}
}
