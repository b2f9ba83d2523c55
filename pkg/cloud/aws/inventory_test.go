package aws_test

import (
	"fmt"
	"slices"
	"testing"

	"antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

func TestInventory1500VMsAcrossPages(t *testing.T) {
	for _, pageSize := range []int32{1000, 100} {
		t.Run(fmt.Sprintf("page size %d", pageSize), func(t *testing.T) {
			f := newFixture(t, 3)
			vms := f.addVMs(t, 1500, awsemu.InstanceSpec{Tags: map[string]string{"env": "prod"}})
			p := f.provider(t, func(o *aws.Options) { o.PageSize = pageSize })

			snap, err := p.Inventory(t.Context(), region)
			if err != nil {
				t.Fatal(err)
			}
			if len(snap.VMs) != 1500 || len(snap.VPCs) != 3 {
				t.Fatalf("got %d VMs and %d VPCs; want 1500 and 3", len(snap.VMs), len(snap.VPCs))
			}
			for i, want := range vms {
				got, ok := snap.VM(want.ID)
				if !ok {
					t.Fatalf("VM %d (%s) missing", i, want.ID)
				}
				if got.NICs[0].ID != want.NICs[0] || got.NICs[0].PrivateIPs[0] != want.PrivateIP || got.VPCID != f.vpcs[i%3] {
					t.Fatalf("VM %s = %+v; want NIC %s with %s in %s", want.ID, got, want.NICs[0], want.PrivateIP, f.vpcs[i%3])
				}
			}
			pages := (1500 + int(pageSize) - 1) / int(pageSize)
			if got := f.emu.Calls("DescribeInstances"); got != pages {
				t.Errorf("DescribeInstances calls = %d; want %d pages", got, pages)
			}
			if got := f.emu.Calls("DescribeNetworkInterfaces"); got != pages {
				t.Errorf("DescribeNetworkInterfaces calls = %d; want %d pages", got, pages)
			}
		})
	}
}

func TestInventoryShape(t *testing.T) {
	f := newFixture(t, 1)
	vm := f.addVMs(t, 1, awsemu.InstanceSpec{Name: "web", NICs: 2, PublicIP: true, InstanceType: "m5.large", Tags: map[string]string{"env": "prod"}})[0]
	stopped := f.addVMs(t, 1, awsemu.InstanceSpec{State: "stopped"})[0]
	gone := f.addVMs(t, 1, awsemu.InstanceSpec{})[0]
	if err := f.emu.Terminate(region, gone.ID); err != nil {
		t.Fatal(err)
	}
	if err := f.emu.SetTags(region, vm.NICs[1], map[string]string{"role": "backend"}); err != nil {
		t.Fatal(err)
	}
	snap, err := f.provider(t, nil).Inventory(t.Context(), region)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snap.VM(gone.ID); ok {
		t.Error("terminated instance in the snapshot")
	}
	if got, _ := snap.VM(stopped.ID); got.State != provider.VMStopped {
		t.Errorf("stopped instance state = %q", got.State)
	}
	got, ok := snap.VM(vm.ID)
	if !ok {
		t.Fatal("instance missing")
	}
	if got.Name != "web" || got.InstanceType != "m5.large" || got.Zone != "us-east-1a" || got.State != provider.VMRunning || got.Tags["env"] != "prod" {
		t.Errorf("VM = %+v", got)
	}
	if len(got.NICs) != 2 || !got.NICs[0].Primary || got.NICs[1].Primary || got.NICs[0].ID != vm.NICs[0] {
		t.Fatalf("NICs = %+v; want 2, primary first", got.NICs)
	}
	primary := got.NICs[0]
	if len(primary.PublicIPs) != 1 || len(primary.SecurityGroupIDs) != 1 || primary.MAC == "" || primary.SubnetID == "" || primary.VPCID != f.vpcs[0] {
		t.Errorf("primary NIC = %+v", primary)
	}
	if got.NICs[1].Tags["role"] != "backend" {
		t.Errorf("secondary NIC tags = %v; want the interface's own tags", got.NICs[1].Tags)
	}
	if v := snap.VPCs[0]; v.Name != "vpc-0" || !slices.Equal(v.CIDRs, []string{"10.0.0.0/16"}) {
		t.Errorf("VPC = %+v", v)
	}
}

func TestInventoryFollowsChanges(t *testing.T) {
	f := newFixture(t, 1)
	vms := f.addVMs(t, 3, awsemu.InstanceSpec{})
	p := f.provider(t, nil)
	ctx := t.Context()
	if err := f.emu.SetPrivateIP(region, vms[0].ID, "10.0.99.99"); err != nil {
		t.Fatal(err)
	}
	if err := f.emu.SetTags(region, vms[1].ID, map[string]string{"Name": "renamed"}); err != nil {
		t.Fatal(err)
	}
	if err := f.emu.Terminate(region, vms[2].ID); err != nil {
		t.Fatal(err)
	}
	snap, err := p.Inventory(ctx, region)
	if err != nil {
		t.Fatal(err)
	}
	if vm, _ := snap.VM(vms[0].ID); vm.NICs[0].PrivateIPs[0] != "10.0.99.99" {
		t.Errorf("IP change not seen: %v", vm.NICs[0].PrivateIPs)
	}
	if vm, _ := snap.VM(vms[1].ID); vm.Name != "renamed" {
		t.Errorf("tag change not seen: %q", vm.Name)
	}
	if len(snap.VMs) != 2 {
		t.Errorf("%d VMs; want the terminated one gone", len(snap.VMs))
	}
}

func TestVMTerminatedBetweenPages(t *testing.T) {
	f := newFixture(t, 1)
	vms := f.addVMs(t, 12, awsemu.InstanceSpec{})
	p := f.provider(t, func(o *aws.Options) { o.PageSize = 5 })
	calls := 0
	f.emu.OnCall(func(action string) {
		if action != "DescribeInstances" {
			return
		}
		if calls++; calls == 2 { // page 1 (vms 0-4) was read
			for _, vm := range []awsemu.Instance{vms[2], vms[8]} {
				if err := f.emu.Terminate(region, vm.ID); err != nil {
					t.Error(err)
				}
			}
		}
	})
	snap, err := p.Inventory(t.Context(), region)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, vm := range snap.VMs {
		ids = append(ids, vm.ID)
	}
	var want []string
	for i, vm := range vms {
		if i != 8 {
			want = append(want, vm.ID)
		}
	}
	if !slices.Equal(ids, want) {
		t.Fatalf("snapshot = %v\nwant %v (one seen before it went, nothing skipped)", ids, want)
	}
	if vm, _ := snap.VM(vms[2].ID); len(vm.NICs) != 1 {
		t.Errorf("VM terminated after it was read lost its NIC: %+v", vm)
	}
	snap, err = p.Inventory(t.Context(), region)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.VMs) != 10 {
		t.Errorf("next poll has %d VMs; want 10", len(snap.VMs))
	}
}

func TestEventualConsistency(t *testing.T) {
	f := newFixture(t, 1)
	f.addVMs(t, 2, awsemu.InstanceSpec{})
	f.emu.HideNewInstances(2)
	fresh := f.addVMs(t, 1, awsemu.InstanceSpec{Name: "fresh"})[0]
	p := f.provider(t, nil)
	for poll := 1; poll <= 3; poll++ {
		snap, err := p.Inventory(t.Context(), region)
		if err != nil {
			t.Fatal(err)
		}
		_, seen := snap.VM(fresh.ID)
		if seen != (poll == 3) {
			t.Errorf("poll %d: new VM seen = %v; want it only from poll 3", poll, seen)
		}
		if len(snap.VMs) < 2 {
			t.Errorf("poll %d lost existing VMs: %d", poll, len(snap.VMs))
		}
	}
}
