package externalentity_test

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/externalentity"
)

// The controller in a manager of the cluster the cloud is imported into
// (cfg), as cmd/cloud-controller runs it.
func ExampleSetupWithManager() {
	run := func(ctx context.Context, cfg *rest.Config) error {
		sch, err := scheme.New()
		if err != nil {
			return err
		}
		mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: sch})
		if err != nil {
			return err
		}
		if err := externalentity.SetupWithManager(mgr, externalentity.Options{AgentlessNode: "antreaplus-cloud-controller"}); err != nil {
			return err
		}
		return mgr.Start(ctx)
	}
	_ = run
}

// The ExternalEntity of an agented VM's interface: the VM's agent is its
// externalNode, its addresses the endpoints, the cloud tags labels; its
// network is its VPC's, and an annotation classifies its addresses (the
// public IP is also its egress address: it has no NAT gateway).
func ExampleForNetworkInterface() {
	vm := &cloudv1alpha1.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1"},
		Spec: cloudv1alpha1.VirtualMachineSpec{Provider: cloudv1alpha1.ProviderAWS, Region: "eu-west-1", VPCID: "vpc-0a1b",
			EnforcementMode: cloudv1alpha1.EnforcementAgented, Tags: map[string]string{"role": "web"}},
	}
	nic := &cloudv1alpha1.NetworkInterface{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "eni-0123"},
		Spec: cloudv1alpha1.NetworkInterfaceSpec{Provider: cloudv1alpha1.ProviderAWS, VirtualMachine: "web-1", Region: "eu-west-1",
			VPCID: "vpc-0a1b", PrivateIPs: []string{"10.0.1.5"}, PublicIPs: []string{"203.0.113.7"}},
	}
	ee := externalentity.ForNetworkInterface(nic, vm, "antreaplus-cloud-controller")
	fmt.Println(ee.Namespace, ee.Name, ee.Spec.ExternalNode, ee.Spec.Endpoints)
	keys := make([]string, 0, len(ee.Labels))
	for k := range ee.Labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Printf("%s=%s\n", k, ee.Labels[k])
	}
	fmt.Println(ee.Annotations["network.antreaplus.io/addresses"])
	// Output:
	// shop nic-eni-0123 web-1 [{10.0.1.5 eni-0123} {203.0.113.7 eni-0123}]
	// cloud.antreaplus.io/kind=VirtualMachine
	// cloud.antreaplus.io/name=web-1
	// cloud.antreaplus.io/namespace=shop
	// cloud.antreaplus.io/network-interface=eni-0123
	// cloud.antreaplus.io/region=eu-west-1
	// cloud.antreaplus.io/vpc=vpc-0a1b
	// network.antreaplus.io/name=aws.vpc-0a1b
	// tag.cloud.antreaplus.io/role=web
	// [{"ip":"10.0.1.5","kind":"Private","network":"aws.vpc-0a1b"},{"ip":"203.0.113.7","kind":"Public"},{"ip":"203.0.113.7","kind":"Egress","via":"PublicIP"}]
}
