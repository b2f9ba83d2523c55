package framework

import (
	_ "embed"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"antreaplus.io/antreaplus/internal/crdinstall"
)

// dnsEndpointCRD is ExternalDNS's own DNSEndpoint CRD, copied unchanged
// from sigs.k8s.io/external-dns v0.22.0
// (config/crd/standard/dnsendpoints.externaldns.k8s.io.yaml, the version
// hack/tools/external-dns pins). The project ships no copy of it: it comes
// with ExternalDNS.
//
//go:embed crds/dnsendpoints.externaldns.k8s.io.yaml
var dnsEndpointCRD []byte

// InstallDNSEndpointCRD installs ExternalDNS's DNSEndpoint CRD in the
// cluster of cfg, as installing ExternalDNS does, and waits until it is
// served.
func InstallDNSEndpointCRD(t testing.TB, cfg *rest.Config) {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(dnsEndpointCRD, crd); err != nil {
		t.Fatalf("decoding the DNSEndpoint CRD: %v", err)
	}
	if err := crdinstall.Install(t.Context(), cfg, []*apiextensionsv1.CustomResourceDefinition{crd}); err != nil {
		t.Fatal(err)
	}
}
