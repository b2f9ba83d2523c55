package sandbox

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cloudv1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// testVM is an agented AWS VM, running, with a primary interface at ip
// ("" for none), changed by mods.
func testVM(object, cloudName, ip string, mods ...func(*cloudv1.VirtualMachine)) (cloudv1.VirtualMachine, []cloudv1.NetworkInterface) {
	vm := cloudv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Name: object, Namespace: "cloud-demo"},
		Spec: cloudv1.VirtualMachineSpec{Provider: cloudv1.ProviderAWS, CloudName: cloudName, State: cloudv1.VMStateRunning,
			EnforcementMode: cloudv1.EnforcementAgented}}
	for _, m := range mods {
		m(&vm)
	}
	if ip == "" {
		return vm, nil
	}
	return vm, []cloudv1.NetworkInterface{
		{Spec: cloudv1.NetworkInterfaceSpec{VirtualMachine: object, Primary: false, PrivateIPs: []string{"192.0.2.9"}}},
		{Spec: cloudv1.NetworkInterfaceSpec{VirtualMachine: object, Primary: true, PrivateIPs: []string{"fd00::1", ip}}},
	}
}

func agentless(vm *cloudv1.VirtualMachine)  { vm.Spec.EnforcementMode = cloudv1.EnforcementAgentless }
func onAzure(vm *cloudv1.VirtualMachine)    { vm.Spec.Provider = cloudv1.ProviderAzure }
func terminated(vm *cloudv1.VirtualMachine) { vm.Spec.State = cloudv1.VMStateTerminated }

type testInventory struct {
	vms  []cloudv1.VirtualMachine
	nics []cloudv1.NetworkInterface
}

func (in *testInventory) add(vm cloudv1.VirtualMachine, nics []cloudv1.NetworkInterface) *testInventory {
	in.vms = append(in.vms, vm)
	in.nics = append(in.nics, nics...)
	return in
}

func TestPlanVMs(t *testing.T) {
	cases := []struct {
		name    string
		in      *testInventory
		want    string // name=netns,veth,cidr;...
		wantErr string
	}{{
		name: "agented AWS VMs only, sorted, on a /24",
		in: new(testInventory).
			add(testVM("i-3", "dev-build-3", "10.20.0.3")).
			add(testVM("i-1", "dev-build-1", "10.20.0.1")).
			add(testVM("i-9", "prod-web-1", "10.10.0.1", agentless)).
			add(testVM("dev-build-1-abc", "dev-build-1", "10.20.0.1", onAzure)).
			add(testVM("i-7", "dev-build-7", "10.20.0.7", terminated)),
		want: "dev-build-1=ap-x-dev-build-1,v-dev-build-1,10.20.0.1/24;dev-build-3=ap-x-dev-build-3,v-dev-build-3,10.20.0.3/24",
	}, {
		name: "addresses in two /24s share a shorter prefix",
		in: new(testInventory).
			add(testVM("i-1", "a", "10.20.0.5")).
			add(testVM("i-2", "b", "10.20.3.5")),
		want: "a=ap-x-a,v-a,10.20.0.5/22;b=ap-x-b,v-b,10.20.3.5/22",
	}, {
		name: "odd and duplicate cloud names become distinct safe names; long ones a digest veth",
		in: new(testInventory).
			add(testVM("i-1", "Build Box", "10.0.0.1")).
			add(testVM("i-2", "Build Box", "10.0.0.2")).
			add(testVM("i-3", "", "10.0.0.3")).
			add(testVM("i-4", "a-very-long-vm-name", "10.0.0.4")),
		want: "a-very-long-vm-name=ap-x-a-very-long-vm-name,v-d6df078beed7,10.0.0.4/24;" +
			"build-box=ap-x-build-box,v-build-box,10.0.0.1/24;build-box-i-2=ap-x-build-box-i-2,v-build-box-i-2,10.0.0.2/24;" +
			"i-3=ap-x-i-3,v-i-3,10.0.0.3/24",
	}, {
		name:    "a VM without an address yet",
		in:      new(testInventory).add(testVM("i-1", "dev-build-1", "")),
		wantErr: "no primary interface with an IPv4 address",
	}, {
		name: "none",
		in:   new(testInventory).add(testVM("i-9", "prod-web-1", "10.10.0.1", agentless)),
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vms, err := planVMs("ap-x", tc.in.vms, tc.in.nics)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range vms {
				got = append(got, v.Name+"="+v.NetNS+","+v.Veth+","+v.CIDR())
				if len(v.Veth) > 15 {
					t.Errorf("veth %s is longer than an interface name may be", v.Veth)
				}
			}
			if s := strings.Join(got, ";"); s != tc.want {
				t.Errorf("plan:\n got %s\nwant %s", s, tc.want)
			}
		})
	}
}

func TestVMNetNSBase(t *testing.T) {
	a, b := vmNetNSBase("/tmp/sandbox-a"), vmNetNSBase("/tmp/sandbox-b")
	if a == b {
		t.Errorf("two sandboxes share the namespace base %s", a)
	}
	if a != vmNetNSBase("/tmp/sandbox-a/") {
		t.Errorf("the base depends on a trailing slash")
	}
	if !strings.HasPrefix(a, "ap-") || len(a) != len("ap-")+6 {
		t.Errorf("base %q, want ap-<6 hex digits>", a)
	}
	for name, want := range map[string]bool{a: true, a + "-dev-build-1": true, a + "x": false, b + "-dev-build-1": false, "ap-": false} {
		if got := ownsNetNS(a, name); got != want {
			t.Errorf("ownsNetNS(%s, %s) = %v, want %v", a, name, got, want)
		}
	}
}
