package aws_test

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

const (
	keyID  = "AKIAPROVIDERTEST"
	secret = "provider-test-secret-do-not-log"
	region = "us-east-1"
)

type fixture struct {
	emu  *awsemu.Server
	url  string
	vpcs []string
}

// newFixture starts an emulator with nVPC VPCs and no instances.
func newFixture(t testing.TB, nVPC int) *fixture {
	t.Helper()
	emu := awsemu.New(awsemu.Options{Credentials: []awsemu.Credential{{AccessKeyID: keyID, SecretAccessKey: secret}}})
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	f := &fixture{emu: emu, url: srv.URL}
	for n := range nVPC {
		id, err := emu.AddVPC(awsemu.VPCSpec{Region: region, Name: fmt.Sprintf("vpc-%d", n), CIDR: fmt.Sprintf("10.%d.0.0/16", n)})
		if err != nil {
			t.Fatal(err)
		}
		f.vpcs = append(f.vpcs, id)
	}
	return f
}

// addVMs adds n instances spread over the fixture's VPCs.
func (f *fixture) addVMs(t testing.TB, n int, spec awsemu.InstanceSpec) []awsemu.Instance {
	t.Helper()
	var out []awsemu.Instance
	for i := range n {
		s := spec
		s.Region = region
		s.VPCID = f.vpcs[i%len(f.vpcs)]
		if s.Name == "" {
			s.Name = fmt.Sprintf("vm-%05d", i)
		}
		vm, err := f.emu.AddInstance(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, vm)
	}
	return out
}

// provider returns a provider on the fixture with fast backoff; change
// tweaks its options.
func (f *fixture) provider(t testing.TB, change func(*aws.Options)) *aws.Provider {
	t.Helper()
	opts := aws.Options{AccessKeyID: keyID, SecretAccessKey: secret, Endpoint: f.url, MaxBackoff: time.Millisecond}
	if change != nil {
		change(&opts)
	}
	p, err := aws.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
