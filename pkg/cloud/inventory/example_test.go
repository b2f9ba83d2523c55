package inventory_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// A selector importing the VMs of VPC vpc-prod, agented: the objects one
// poll's snapshot makes, and the plan against what is stored. A second
// poll that finds the same cloud plans no write.
func ExampleDesired() {
	sel := &cloudv1alpha1.CloudEntitySelector{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "prod", UID: "uid-1"},
		Spec: cloudv1alpha1.CloudEntitySelectorSpec{
			AccountRef: cloudv1alpha1.CloudProviderAccountReference{Name: "aws"},
			VirtualMachines: []cloudv1alpha1.VirtualMachineMatch{{
				VPCMatch:        &cloudv1alpha1.EntityMatch{IDs: []string{"vpc-prod"}},
				EnforcementMode: cloudv1alpha1.EnforcementAgented,
			}},
		},
	}
	snap := &provider.Snapshot{Cloud: provider.AWS, Region: "eu-west-1",
		VPCs: []provider.VPC{{ID: "vpc-prod"}, {ID: "vpc-dev"}},
		VMs: []provider.VM{
			{ID: "i-0a", Name: "web-1", VPCID: "vpc-prod", State: provider.VMRunning, Tags: map[string]string{"role": "web"},
				NICs: []provider.NIC{{ID: "eni-0a", Primary: true, VPCID: "vpc-prod", PrivateIPs: []string{"10.0.1.5"}}}},
			{ID: "i-0b", Name: "build-1", VPCID: "vpc-dev", State: provider.VMRunning},
		},
	}
	in := inventory.Input{Selector: sel, Account: cloudv1alpha1.CloudProviderAccountReference{Name: "aws", Namespace: "shop"},
		Snapshots: []*provider.Snapshot{snap}}
	desired := inventory.Desired(in)
	for _, vm := range desired.VirtualMachines {
		fmt.Println("VirtualMachine", vm.Name, vm.Spec.EnforcementMode, vm.Labels["tag.cloud.antreaplus.io/role"])
	}
	for _, nic := range desired.NetworkInterfaces {
		fmt.Println("NetworkInterface", nic.Name, nic.Spec.VirtualMachine, nic.Spec.PrivateIPs)
	}
	plan := inventory.Diff(desired, inventory.Objects{}, nil)
	fmt.Println("first poll:", plan.Writes(), "writes") // VMs first, then their interfaces
	plan = inventory.Diff(inventory.Desired(in), desired, nil)
	fmt.Println("same cloud again:", plan.Writes(), "writes")
	// Output:
	// VirtualMachine i-0a Agented web
	// NetworkInterface eni-0a i-0a [10.0.1.5]
	// first poll: 2 writes
	// same cloud again: 0 writes
}
