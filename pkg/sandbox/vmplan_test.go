package sandbox

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// testVM is an agented AWS VM, running, with a primary interface at ip
// ("" for none), changed by mods.
func testVM(object, cloudName, ip string, mods ...func(*cloudv1alpha1.VirtualMachine)) (cloudv1alpha1.VirtualMachine, []cloudv1alpha1.NetworkInterface) {
	vm := cloudv1alpha1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Name: object, Namespace: "cloud-demo"},
		Spec: cloudv1alpha1.VirtualMachineSpec{Provider: cloudv1alpha1.ProviderAWS, CloudName: cloudName, State: cloudv1alpha1.VMStateRunning,
			EnforcementMode: cloudv1alpha1.EnforcementAgented}}
	for _, m := range mods {
		m(&vm)
	}
	if ip == "" {
		return vm, nil
	}
	return vm, []cloudv1alpha1.NetworkInterface{
		{Spec: cloudv1alpha1.NetworkInterfaceSpec{VirtualMachine: object, Primary: false, PrivateIPs: []string{"192.0.2.9"}}},
		{Spec: cloudv1alpha1.NetworkInterfaceSpec{VirtualMachine: object, Primary: true, PrivateIPs: []string{"fd00::1", ip}}},
	}
}

func agentless(vm *cloudv1alpha1.VirtualMachine) {
	vm.Spec.EnforcementMode = cloudv1alpha1.EnforcementAgentless
}
func onAzure(vm *cloudv1alpha1.VirtualMachine)    { vm.Spec.Provider = cloudv1alpha1.ProviderAzure }
func terminated(vm *cloudv1alpha1.VirtualMachine) { vm.Spec.State = cloudv1alpha1.VMStateTerminated }

// testMember imports clouds; its policy controller listens on port.
func testMember(cluster string, port int, clouds ...cloudv1alpha1.CloudProvider) CloudMember {
	return CloudMember{Cluster: cluster, Clouds: clouds, PolicyServer: "https://" + loopback(port)}
}

var (
	awsMember   = testMember("member-1", 16750, cloudv1alpha1.ProviderAWS)
	azureMember = testMember("member-2", 16753, cloudv1alpha1.ProviderAzure)
	bothMember  = testMember("member-1", 16750, cloudv1alpha1.ProviderAWS, cloudv1alpha1.ProviderAzure)
)

// testInventory is what a member imported.
func testInventory(m CloudMember, vms ...func() (cloudv1alpha1.VirtualMachine, []cloudv1alpha1.NetworkInterface)) vmInventory {
	inv := vmInventory{member: m}
	for _, f := range vms {
		vm, nics := f()
		inv.vms = append(inv.vms, vm)
		inv.nics = append(inv.nics, nics...)
	}
	return inv
}

// vm defers testVM, for testInventory.
func vm(object, cloudName, ip string, mods ...func(*cloudv1alpha1.VirtualMachine)) func() (cloudv1alpha1.VirtualMachine, []cloudv1alpha1.NetworkInterface) {
	return func() (cloudv1alpha1.VirtualMachine, []cloudv1alpha1.NetworkInterface) {
		return testVM(object, cloudName, ip, mods...)
	}
}

func TestPlanVMs(t *testing.T) {
	cases := []struct {
		name    string
		in      []vmInventory
		want    []string // name=cloud,cluster,policy server,cidr,netns,veth
		wantErr string
	}{{
		name: "the agented VMs of the clouds each member imports, on one link; an Azure name AWS has gets a prefix",
		in: []vmInventory{
			testInventory(awsMember,
				vm("i-3", "dev-build-3", "10.20.0.3"),
				vm("i-1", "dev-build-1", "10.20.0.1"),
				vm("i-9", "prod-web-1", "10.10.0.1", agentless),
				vm("i-7", "dev-build-7", "10.20.0.7", terminated),
				vm("stray-azure", "dev-build-5", "10.40.0.9", onAzure)), // member-1 does not import Azure
			testInventory(azureMember,
				vm("dev-build-2-def", "dev-build-2", "10.40.0.5", onAzure),
				vm("dev-build-1-abc", "dev-build-1", "10.40.0.4", onAzure),
				vm("prod-web-1-ghi", "prod-web-1", "10.30.0.4", onAzure, agentless)),
		},
		want: []string{
			"azure-dev-build-1=Azure,member-2,https://127.0.0.1:16753,10.40.0.4/10,ap-x-azure-dev-build-1,v-7edcc50183fd",
			"dev-build-1=AWS,member-1,https://127.0.0.1:16750,10.20.0.1/10,ap-x-dev-build-1,v-dev-build-1",
			"dev-build-2=Azure,member-2,https://127.0.0.1:16753,10.40.0.5/10,ap-x-dev-build-2,v-dev-build-2",
			"dev-build-3=AWS,member-1,https://127.0.0.1:16750,10.20.0.3/10,ap-x-dev-build-3,v-dev-build-3",
		},
	}, {
		name: "both clouds in one member: the same names, the same policy server",
		in: []vmInventory{testInventory(bothMember,
			vm("dev-build-1-abc", "dev-build-1", "10.40.0.4", onAzure),
			vm("i-1", "dev-build-1", "10.20.0.1"))},
		want: []string{
			"azure-dev-build-1=Azure,member-1,https://127.0.0.1:16750,10.40.0.4/10,ap-x-azure-dev-build-1,v-7edcc50183fd",
			"dev-build-1=AWS,member-1,https://127.0.0.1:16750,10.20.0.1/10,ap-x-dev-build-1,v-dev-build-1",
		},
	}, {
		name: "a name taken in its own cloud gets the object's name; in another, the cloud's",
		in: []vmInventory{
			testInventory(awsMember, vm("i-1", "x", "10.0.0.1")),
			testInventory(azureMember, vm("x-b", "x", "10.0.0.3", onAzure), vm("x-a", "x", "10.0.0.2", onAzure)),
		},
		want: []string{
			"azure-x=Azure,member-2,https://127.0.0.1:16753,10.0.0.2/24,ap-x-azure-x,v-azure-x",
			"azure-x-x-b=Azure,member-2,https://127.0.0.1:16753,10.0.0.3/24,ap-x-azure-x-x-b,v-azure-x-x-b",
			"x=AWS,member-1,https://127.0.0.1:16750,10.0.0.1/24,ap-x-x,v-x",
		},
	}, {
		name: "addresses in two /24s share a shorter prefix",
		in:   []vmInventory{testInventory(awsMember, vm("i-1", "a", "10.20.0.5"), vm("i-2", "b", "10.20.3.5"))},
		want: []string{
			"a=AWS,member-1,https://127.0.0.1:16750,10.20.0.5/22,ap-x-a,v-a",
			"b=AWS,member-1,https://127.0.0.1:16750,10.20.3.5/22,ap-x-b,v-b",
		},
	}, {
		name: "odd and duplicate cloud names become distinct safe names; long ones a digest veth",
		in: []vmInventory{testInventory(awsMember,
			vm("i-1", "Build Box", "10.0.0.1"),
			vm("i-2", "Build Box", "10.0.0.2"),
			vm("i-3", "", "10.0.0.3"),
			vm("i-4", "a-very-long-vm-name", "10.0.0.4"))},
		want: []string{
			"a-very-long-vm-name=AWS,member-1,https://127.0.0.1:16750,10.0.0.4/24,ap-x-a-very-long-vm-name,v-d6df078beed7",
			"build-box=AWS,member-1,https://127.0.0.1:16750,10.0.0.1/24,ap-x-build-box,v-build-box",
			"build-box-i-2=AWS,member-1,https://127.0.0.1:16750,10.0.0.2/24,ap-x-build-box-i-2,v-build-box-i-2",
			"i-3=AWS,member-1,https://127.0.0.1:16750,10.0.0.3/24,ap-x-i-3,v-i-3",
		},
	}, {
		name:    "a VM without an address yet",
		in:      []vmInventory{testInventory(awsMember, vm("i-1", "dev-build-1", ""))},
		wantErr: "no primary interface with an IPv4 address",
	}, {
		name: "a cloud without an agented VM yet",
		in: []vmInventory{
			testInventory(awsMember, vm("i-1", "dev-build-1", "10.20.0.1")),
			testInventory(azureMember, vm("prod-web-1-ghi", "prod-web-1", "10.30.0.4", onAzure, agentless)),
		},
		wantErr: "no agented Azure VM is imported into member-2 yet",
	}, {
		name: "two clouds seeded with the same CIDR cannot share the link",
		in: []vmInventory{
			testInventory(awsMember, vm("i-1", "dev-build-1", "10.20.0.4")),
			testInventory(azureMember, vm("dev-build-1-abc", "dev-build-1", "10.20.0.4", onAzure)),
		},
		wantErr: "VMs dev-build-1 and azure-dev-build-1 share the address 10.20.0.4",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vms, err := planVMs("ap-x", tc.in)
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
				got = append(got, fmt.Sprintf("%s=%s,%s,%s,%s,%s,%s", v.Name, v.Cloud, v.Cluster, v.PolicyServer, v.CIDR(), v.NetNS, v.Veth))
				if len(v.Veth) > 15 {
					t.Errorf("veth %s is longer than an interface name may be", v.Veth)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("plan:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(tc.want, "\n     "))
			}
		})
	}
}

func TestFindVM(t *testing.T) {
	vms := []AgentVM{
		{Name: "dev-build-1", Cloud: cloudv1alpha1.ProviderAWS, IP: "10.20.0.1"},
		{Name: "azure-dev-build-1", Cloud: cloudv1alpha1.ProviderAzure, IP: "10.40.0.4"},
		{Name: "dev-build-2", Cloud: cloudv1alpha1.ProviderAzure, IP: "10.40.0.5"},
	}
	for name, want := range map[string]string{
		"dev-build-1":       "10.20.0.1",
		"aws-dev-build-1":   "10.20.0.1", // the cloud's prefix names an unprefixed VM too
		"azure-dev-build-1": "10.40.0.4",
		"azure-dev-build-2": "10.40.0.5",
		"aws-dev-build-2":   "", // not an AWS VM
		"dev-build-9":       "",
	} {
		got, ok := findVM(vms, name)
		if ok != (want != "") || got.IP != want {
			t.Errorf("findVM(%s) = %s, %v; want %q", name, got.IP, ok, want)
		}
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
