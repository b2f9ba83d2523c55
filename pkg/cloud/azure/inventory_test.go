package azure_test

import (
	"slices"
	"strings"
	"testing"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
)

func TestInventory1500VMsAcrossPages(t *testing.T) {
	f := newFixture(t, 3, azureemu.Options{PageSize: 100})
	vms := f.addVMs(t, 1500, azureemu.VMSpec{Tags: map[string]string{"env": "prod"}})
	snap, err := f.provider(t, nil).Inventory(t.Context(), region)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.VMs) != 1500 || len(snap.VPCs) != 3 || snap.Cloud != provider.Azure {
		t.Fatalf("got %d VMs, %d VNets; want 1500 and 3", len(snap.VMs), len(snap.VPCs))
	}
	for i, want := range vms {
		got, ok := snap.VM(want.ID)
		if !ok || len(got.NICs) != 1 || got.NICs[0].ID != want.NICs[0] || got.NICs[0].PrivateIPs[0] != want.PrivateIP || got.VPCID != f.vnets[i%3] {
			t.Fatalf("VM %s = %+v (found %v); want NIC %s with %s in %s", want.ID, got, ok, want.NICs[0], want.PrivateIP, f.vnets[i%3])
		}
	}
	for op, want := range map[string]int{
		"VirtualMachines.ListAll": 15, "NetworkInterfaces.ListAll": 15, "VirtualNetworks.ListAll": 1,
		"PublicIPAddresses.ListAll": 1, "Subscriptions.ListLocations": 1, "Token": 1,
	} {
		if got := f.emu.Calls(op); got != want {
			t.Errorf("%s calls = %d; want %d", op, got, want)
		}
	}
}

func TestInventoryShape(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{})
	nsg := "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/networkSecurityGroups/antreaplus-web"
	asg := "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/applicationSecurityGroups/web"
	web := f.addVMs(t, 1, azureemu.VMSpec{Name: "Web-1", Size: "Standard_D2s_v5", Zone: "2", PublicIP: true, NICs: 2, NSGID: nsg, ASGIDs: []string{asg}, Tags: map[string]string{"env": "prod"}})[0]
	stopped := f.addVMs(t, 1, azureemu.VMSpec{Name: "db", PowerState: "deallocated"})[0]
	west, err := f.emu.AddVNet(azureemu.VNetSpec{Location: "westus2", Name: "west"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.emu.AddVM(azureemu.VMSpec{VNetID: west, Name: "elsewhere"}); err != nil {
		t.Fatal(err)
	}
	if err := f.emu.SetTags(web.NICs[1], map[string]string{"role": "backend"}); err != nil {
		t.Fatal(err)
	}
	snap, err := f.provider(t, nil).Inventory(t.Context(), region)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.VMs) != 2 || len(snap.VPCs) != 1 {
		t.Fatalf("%d VMs, %d VNets in %s; want the westus2 ones left out", len(snap.VMs), len(snap.VPCs), region)
	}
	if got, _ := snap.VM(stopped.ID); got.State != provider.VMStopped {
		t.Errorf("deallocated VM state = %q", got.State)
	}
	got, _ := snap.VM(web.ID)
	if got.Name != "Web-1" || got.InstanceType != "Standard_D2s_v5" || got.Zone != "2" || got.State != provider.VMRunning || got.Tags["env"] != "prod" || got.VPCID != f.vnets[0] {
		t.Errorf("VM = %+v", got)
	}
	if len(got.NICs) != 2 || !got.NICs[0].Primary || got.NICs[1].Primary {
		t.Fatalf("NICs = %+v; want 2, primary first", got.NICs)
	}
	n := got.NICs[0]
	if len(n.PublicIPs) != 1 || !strings.HasPrefix(n.MAC, "00:0d:3a:") || !slices.Equal(n.SecurityGroupIDs, []string{nsg, asg}) || !strings.HasSuffix(n.SubnetID, "/subnets/default") {
		t.Errorf("primary NIC = %+v", n)
	}
	if got.NICs[1].Tags["role"] != "backend" {
		t.Errorf("second NIC tags = %v", got.NICs[1].Tags)
	}
}

func TestInventoryFollowsChanges(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{})
	vms := f.addVMs(t, 3, azureemu.VMSpec{})
	p := f.provider(t, nil)
	if err := f.emu.SetPrivateIP(vms[0].ID, "10.0.99.99"); err != nil {
		t.Fatal(err)
	}
	if err := f.emu.SetPowerState(vms[1].ID, "stopping"); err != nil {
		t.Fatal(err)
	}
	if err := f.emu.DeleteVM(vms[2].ID); err != nil {
		t.Fatal(err)
	}
	snap, err := p.Inventory(t.Context(), region)
	if err != nil {
		t.Fatal(err)
	}
	if vm, _ := snap.VM(vms[0].ID); vm.NICs[0].PrivateIPs[0] != "10.0.99.99" {
		t.Errorf("IP change not seen: %v", vm.NICs)
	}
	if vm, _ := snap.VM(vms[1].ID); vm.State != provider.VMStopping {
		t.Errorf("state = %s", vm.State)
	}
	if len(snap.VMs) != 2 {
		t.Errorf("%d VMs; want the deleted one gone", len(snap.VMs))
	}
}

func TestVMDeletedBetweenPages(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{PageSize: 5})
	vms := f.addVMs(t, 12, azureemu.VMSpec{})
	calls := 0
	f.emu.OnCall(func(op string) {
		if op != "VirtualMachines.ListAll" {
			return
		}
		if calls++; calls == 2 { // the first page was read
			for _, vm := range []azureemu.VM{vms[1], vms[8]} {
				if err := f.emu.DeleteVM(vm.ID); err != nil {
					t.Error(err)
				}
			}
		}
	})
	snap, err := f.provider(t, nil).Inventory(t.Context(), region)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i, vm := range vms {
		if i != 8 {
			want = append(want, vm.ID)
		}
	}
	slices.SortFunc(want, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	var ids []string
	for _, vm := range snap.VMs {
		ids = append(ids, vm.ID)
	}
	if !slices.Equal(ids, want) {
		t.Fatalf("snapshot = %v\nwant %v (nothing skipped)", ids, want)
	}
}

func TestEventualConsistency(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{})
	f.addVMs(t, 2, azureemu.VMSpec{})
	f.emu.HideNewVMs(2)
	fresh := f.addVMs(t, 1, azureemu.VMSpec{Name: "fresh"})[0]
	p := f.provider(t, nil)
	for poll := 1; poll <= 3; poll++ {
		snap, err := p.Inventory(t.Context(), region)
		if err != nil {
			t.Fatal(err)
		}
		if _, seen := snap.VM(fresh.ID); seen != (poll == 3) {
			t.Errorf("poll %d: new VM seen = %v; want it from poll 3", poll, seen)
		}
		if len(snap.VMs) < 2 {
			t.Errorf("poll %d lost VMs", poll)
		}
	}
}

func TestManyRegionsOneSubscription(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{})
	f.addVMs(t, 2, azureemu.VMSpec{})
	west, _ := f.emu.AddVNet(azureemu.VNetSpec{Location: "westeurope", Name: "eu"})
	if _, err := f.emu.AddVM(azureemu.VMSpec{VNetID: west, Name: "eu-1"}); err != nil {
		t.Fatal(err)
	}
	p := f.provider(t, nil)
	for r, want := range map[string]int{"eastus": 2, "westeurope": 1, "westus2": 0} {
		snap, err := p.Inventory(t.Context(), r)
		if err != nil || len(snap.VMs) != want {
			t.Errorf("%s: %v VMs, %v; want %d", r, len(snap.VMs), err, want)
		}
	}
	if got := f.emu.Calls("Subscriptions.ListLocations"); got != 1 {
		t.Errorf("locations listed %d times; want once", got)
	}
}

func TestInventoryInternalLoadBalancers(t *testing.T) {
	f := newFixture(t, 1, azureemu.Options{})
	id, ip, err := f.emu.AddLoadBalancer(azureemu.LoadBalancerSpec{VNetID: f.vnets[0], Name: "db-ilb", Tags: map[string]string{"role": "db"},
		Rules: []azureemu.LBRule{{Name: "pg", Protocol: "Tcp", Port: 5432}, {Name: "dns", Protocol: "All", Port: 53}, {Name: "ha", Protocol: "All", Port: 0}}})
	if err != nil {
		t.Fatal(err)
	}
	west, _ := f.emu.AddVNet(azureemu.VNetSpec{Location: "westus2", Name: "west"})
	if _, _, err := f.emu.AddLoadBalancer(azureemu.LoadBalancerSpec{VNetID: west, Name: "elsewhere"}); err != nil {
		t.Fatal(err)
	}
	snap, err := f.provider(t, nil).Inventory(t.Context(), region)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Services) != 1 {
		t.Fatalf("services = %+v; want the eastus load balancer only", snap.Services)
	}
	svc := snap.Services[0]
	want := []provider.Port{{Name: "pg", Protocol: "TCP", Port: 5432}, {Name: "dns", Protocol: "TCP", Port: 53}, {Name: "dns", Protocol: "UDP", Port: 53}}
	if svc.ID != id || svc.Kind != provider.AzureLoadBalancer || svc.VPCID != f.vnets[0] || !slices.Equal(svc.PrivateIPs, []string{ip}) ||
		!slices.Equal(svc.Ports, want) || svc.Tags["role"] != "db" {
		t.Errorf("service = %+v; want %s at %s in %s with ports %v", svc, id, ip, f.vnets[0], want)
	}
	if f.emu.Calls("LoadBalancers.ListAll") != 1 {
		t.Errorf("load balancer list calls = %d; want 1", f.emu.Calls("LoadBalancers.ListAll"))
	}
}
