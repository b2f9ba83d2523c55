package azureemu_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"time"

	"antreaplus.io/antreaplus/pkg/cloud/azure"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
)

// An emulated subscription with one VNet and one VM, read by the real
// provider (the Azure SDK, authenticating as a service principal at the
// emulator's token endpoint) over HTTPS, the only way the SDK sends
// tokens; then throttling with a Retry-After longer than the provider
// waits: the poll fails at once with ErrThrottled.
func Example() {
	emu := azureemu.New(azureemu.Options{Clients: []azureemu.Client{{ClientID: "app", Secret: "s3cret"}}})
	srv := httptest.NewTLSServer(emu)
	defer srv.Close()
	vnet, err := emu.AddVNet(azureemu.VNetSpec{Location: "eastus", Name: "prod", Prefix: "10.30.0.0/16"})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := emu.AddVM(azureemu.VMSpec{VNetID: vnet, Name: "web-1"}); err != nil {
		fmt.Println(err)
		return
	}

	p, err := azure.New(azure.Options{
		SubscriptionID: emu.SubscriptionID(), TenantID: emu.TenantID(), ClientID: "app", ClientSecret: "s3cret",
		Endpoint: srv.URL, AuthorityHost: srv.URL, Transport: srv.Client(), // trust the server's certificate
		RetryDelay: time.Millisecond, MaxRetryDelay: time.Second,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	snap, err := p.Inventory(context.Background(), "eastus")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, vm := range snap.VMs {
		fmt.Println(vm.Name, vm.State, len(vm.NICs), "interface(s)")
	}

	emu.Throttle("VirtualMachines.ListAll", 1, time.Minute)
	_, err = p.Inventory(context.Background(), "eastus")
	fmt.Println("throttled:", errors.Is(err, provider.ErrThrottled))
	fmt.Println("VirtualMachines.ListAll calls:", emu.Calls("VirtualMachines.ListAll"))
	// Output:
	// web-1 Running 1 interface(s)
	// throttled: true
	// VirtualMachines.ListAll calls: 2
}
