package inventory

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// Builders for test inputs, with functional modifiers.

func snapshot(region string, mods ...func(*provider.Snapshot)) *provider.Snapshot {
	s := &provider.Snapshot{Cloud: provider.AWS, Region: region}
	for _, m := range mods {
		m(s)
	}
	return s
}

func withVPC(id, name string, tags map[string]string) func(*provider.Snapshot) {
	return func(s *provider.Snapshot) {
		s.VPCs = append(s.VPCs, provider.VPC{ID: id, Name: name, Tags: tags})
	}
}

// withVM adds a running VM with one primary NIC in vpc.
func withVM(id, vpc string, mods ...func(*provider.VM)) func(*provider.Snapshot) {
	return func(s *provider.Snapshot) {
		vm := provider.VM{ID: id, VPCID: vpc, State: provider.VMRunning, Zone: s.Region + "a", InstanceType: "t3.micro",
			NICs: []provider.NIC{{ID: "eni-" + id, Primary: true, VPCID: vpc, SubnetID: "subnet-1", MAC: "02:00:00:00:00:01",
				PrivateIPs: []string{"10.0.0.1"}, SecurityGroupIDs: []string{"sg-1"}}}}
		for _, m := range mods {
			m(&vm)
		}
		s.VMs = append(s.VMs, vm)
	}
}

func withService(id, kind, vpc string, mods ...func(*provider.Service)) func(*provider.Snapshot) {
	return func(s *provider.Snapshot) {
		svc := provider.Service{ID: id, Name: id, Kind: provider.ServiceKind(kind), VPCID: vpc, PrivateIPs: []string{"10.0.9.9"},
			Ports: []provider.Port{{Protocol: "TCP", Port: 443}}}
		for _, m := range mods {
			m(&svc)
		}
		s.Services = append(s.Services, svc)
	}
}

func named(name string) func(*provider.VM) { return func(v *provider.VM) { v.Name = name } }

func tagged(kv ...string) func(*provider.VM) {
	return func(v *provider.VM) {
		if v.Tags == nil {
			v.Tags = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Tags[kv[i]] = kv[i+1]
		}
	}
}

func inState(s provider.VMState) func(*provider.VM) { return func(v *provider.VM) { v.State = s } }

func withIP(ip string) func(*provider.VM) {
	return func(v *provider.VM) { v.NICs[0].PrivateIPs = []string{ip} }
}

func selector(vms []cloudv1alpha1.VirtualMachineMatch, svcs ...cloudv1alpha1.CloudNativeServiceMatch) *cloudv1alpha1.CloudEntitySelector {
	return &cloudv1alpha1.CloudEntitySelector{
		ObjectMeta: metav1.ObjectMeta{Name: "sel", Namespace: "tenant-a"},
		Spec: cloudv1alpha1.CloudEntitySelectorSpec{
			AccountRef:          cloudv1alpha1.CloudProviderAccountReference{Name: "acct"},
			VirtualMachines:     vms,
			CloudNativeServices: svcs,
		},
	}
}

func input(sel *cloudv1alpha1.CloudEntitySelector, snaps ...*provider.Snapshot) Input {
	return Input{Selector: sel, Account: cloudv1alpha1.CloudProviderAccountReference{Name: "acct", Namespace: "tenant-a"}, Snapshots: snaps}
}

func byVPC(ids ...string) cloudv1alpha1.VirtualMachineMatch {
	return cloudv1alpha1.VirtualMachineMatch{VPCMatch: &cloudv1alpha1.EntityMatch{IDs: ids}}
}

// fleet is a snapshot of n VMs over 10 VPCs, with tags.
func fleet(region string, n int) *provider.Snapshot {
	var mods []func(*provider.Snapshot)
	for v := range 10 {
		mods = append(mods, withVPC(fmt.Sprintf("vpc-%d", v), fmt.Sprintf("net-%d", v), nil))
	}
	for i := range n {
		mods = append(mods, withVM(fmt.Sprintf("i-%017x", i), fmt.Sprintf("vpc-%d", i%10), named(fmt.Sprintf("vm-%d", i)), tagged("env", "prod", "team name", "web")))
	}
	return snapshot(region, mods...)
}

// asStored makes objects look like what an API server returns: UIDs,
// resource versions, a status, a label someone else added.
func asStored(o Objects) Objects {
	var out Objects
	for i, v := range o.VirtualMachines {
		v = *v.DeepCopy()
		v.UID, v.ResourceVersion = types.UID("uid-"+v.Name), fmt.Sprint(i+1)
		v.Labels["someone.else/label"] = "x"
		v.Status.ObservedGeneration = 1
		out.VirtualMachines = append(out.VirtualMachines, v)
	}
	for i, n := range o.NetworkInterfaces {
		n = *n.DeepCopy()
		n.UID, n.ResourceVersion = types.UID("uid-"+n.Name), fmt.Sprint(i+1)
		out.NetworkInterfaces = append(out.NetworkInterfaces, n)
	}
	for _, s := range o.CloudNativeServices {
		out.CloudNativeServices = append(out.CloudNativeServices, *s.DeepCopy())
	}
	return out
}

// withOwners sets each stored NIC's owner to its VM, as the controller
// does after creating both.
func withOwners(o Objects) Objects {
	for i := range o.NetworkInterfaces {
		nic := &o.NetworkInterfaces[i]
		for _, vm := range o.VirtualMachines {
			if vm.Name == nic.Spec.VirtualMachine {
				nic.OwnerReferences = []metav1.OwnerReference{ownerRef(&vm)}
			}
		}
	}
	return o
}
