package azure_test

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"antreaplus.io/antreaplus/pkg/cloud/azure"
	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
)

const (
	clientID = "antreaplus-test-app"
	secret   = "azure-test-secret-do-not-log"
	region   = "eastus"
)

type fixture struct {
	emu   *azureemu.Server
	srv   *httptest.Server
	vnets []string
}

// newFixture starts the emulator over TLS with nVNet VNets in region.
func newFixture(t testing.TB, nVNet int, opts azureemu.Options) *fixture {
	t.Helper()
	opts.Clients = append(opts.Clients, azureemu.Client{ClientID: clientID, Secret: secret})
	emu := azureemu.New(opts)
	srv := httptest.NewTLSServer(emu)
	t.Cleanup(srv.Close)
	f := &fixture{emu: emu, srv: srv}
	for n := range nVNet {
		id, err := emu.AddVNet(azureemu.VNetSpec{Location: region, Name: fmt.Sprintf("vnet-%d", n), Prefix: fmt.Sprintf("10.%d.0.0/16", n)})
		if err != nil {
			t.Fatal(err)
		}
		f.vnets = append(f.vnets, id)
	}
	return f
}

func (f *fixture) addVMs(t testing.TB, n int, spec azureemu.VMSpec) []azureemu.VM {
	t.Helper()
	var out []azureemu.VM
	for i := range n {
		s := spec
		s.VNetID = f.vnets[i%len(f.vnets)]
		if s.Name == "" {
			s.Name = fmt.Sprintf("vm-%05d", i)
		}
		vm, err := f.emu.AddVM(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, vm)
	}
	return out
}

// options authenticate as the test service principal through the
// emulator's token endpoint, with fast retries.
func (f *fixture) options() azure.Options {
	return azure.Options{
		SubscriptionID: f.emu.SubscriptionID(), TenantID: f.emu.TenantID(), ClientID: clientID, ClientSecret: secret,
		Endpoint: f.srv.URL, AuthorityHost: f.srv.URL, Transport: f.srv.Client(),
		RetryDelay: time.Millisecond, MaxRetryDelay: time.Second,
	}
}

func (f *fixture) provider(t testing.TB, change func(*azure.Options)) *azure.Provider {
	t.Helper()
	opts := f.options()
	if change != nil {
		change(&opts)
	}
	p, err := azure.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
