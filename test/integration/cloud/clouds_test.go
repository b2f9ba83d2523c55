package cloud

import (
	"crypto/x509"
	"fmt"
	"net/http/httptest"
	"testing"

	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
)

// Credentials the emulators accept. The secrets must never show up in the
// API server.
const (
	awsKeyID       = "AKIAINTEGRATIONTEST"
	awsSecret      = "aws-integration-secret-never-shown"
	azureClient    = "antreaplus-integration-app"
	azureSecret    = "azure-integration-secret-never-shown"
	awsRegion      = "us-east-1"
	awsOtherRegion = "eu-west-1"
	azureRegion    = "eastus"
)

// awsCloud is an EC2 emulator served over HTTP with a prod and a dev VPC
// in awsRegion.
type awsCloud struct {
	emu  *awsemu.Server
	url  string
	vpcs map[string]string // name -> id
}

func newAWS(t *testing.T, opts awsemu.Options) *awsCloud {
	t.Helper()
	opts.Credentials = append(opts.Credentials, awsemu.Credential{AccessKeyID: awsKeyID, SecretAccessKey: awsSecret})
	emu := awsemu.New(opts)
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	c := &awsCloud{emu: emu, url: srv.URL, vpcs: map[string]string{}}
	for i, name := range []string{"prod", "dev"} {
		id, err := emu.AddVPC(awsemu.VPCSpec{Region: awsRegion, Name: name, CIDR: fmt.Sprintf("10.%d.0.0/16", 10+i), Tags: map[string]string{"env": name}})
		if err != nil {
			t.Fatal(err)
		}
		c.vpcs[name] = id
	}
	return c
}

// addVMs adds n instances named <prefix>-<i> to the VPC named vpc.
func (c *awsCloud) addVMs(t *testing.T, n int, vpc, prefix string, spec awsemu.InstanceSpec) []awsemu.Instance {
	t.Helper()
	var out []awsemu.Instance
	for i := range n {
		s := spec
		s.Region = awsRegion
		s.VPCID = c.vpcs[vpc]
		s.Name = fmt.Sprintf("%s-%d", prefix, i)
		vm, err := c.emu.AddInstance(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, vm)
	}
	return out
}

// azureCloud is an ARM emulator served over TLS with a prod VNet.
type azureCloud struct {
	emu   *azureemu.Server
	url   string
	roots *x509.CertPool
	vnet  string
}

func newAzure(t *testing.T) *azureCloud {
	t.Helper()
	emu := azureemu.New(azureemu.Options{Clients: []azureemu.Client{{ClientID: azureClient, Secret: azureSecret}}})
	srv := httptest.NewTLSServer(emu)
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	vnet, err := emu.AddVNet(azureemu.VNetSpec{Location: azureRegion, Name: "prod", Prefix: "10.30.0.0/16", Tags: map[string]string{"env": "prod"}})
	if err != nil {
		t.Fatal(err)
	}
	return &azureCloud{emu: emu, url: srv.URL, roots: roots, vnet: vnet}
}
