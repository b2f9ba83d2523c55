package main

import (
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
)

// The edge networks (--edge): an AWS VPC and an Azure VNet with the same
// range, as real estates have (10.0.0.0/16 is both consoles' default).
// AWS's edge-web-1 has no public IP and leaves through the VPC's NAT
// gateway (edgeNATAddress); Azure's edge-db-1 is reached at its public IP,
// and edge-twin-1 has edge-web-1's private address (edgeTwinAddress): a
// policy that admitted edge-web-1 by it would admit the twin.
const (
	edgeCIDR        = "10.0.0.0/16"
	edgeNATAddress  = "198.18.255.10"
	edgeTwinAddress = "10.0.1.5"
	edgeDBAddress   = "10.0.1.10"
)

func edgeTags(role string) map[string]string {
	return map[string]string{"env": "edge", "role": role}
}

func seedAWSEdge(emu *awsemu.Server, edge bool) error {
	if !edge {
		return nil
	}
	vpc, err := emu.AddVPC(awsemu.VPCSpec{Region: awsRegion, CIDR: edgeCIDR, Name: "edge", Tags: map[string]string{"env": "edge"}})
	if err != nil {
		return err
	}
	if _, err := emu.AddInstance(awsemu.InstanceSpec{Region: awsRegion, VPCID: vpc, Name: "edge-web-1", Tags: edgeTags("edge-web"),
		PrivateIP: edgeTwinAddress}); err != nil {
		return err
	}
	_, err = emu.AddNATGateway(awsRegion, vpc, edgeNATAddress)
	return err
}

func seedAzureEdge(emu *azureemu.Server, edge bool) error {
	if !edge {
		return nil
	}
	vnet, err := emu.AddVNet(azureemu.VNetSpec{Location: azureRegion, Name: "edge", Prefix: edgeCIDR, Tags: map[string]string{"env": "edge"}})
	if err != nil {
		return err
	}
	for _, vm := range []azureemu.VMSpec{
		{VNetID: vnet, Name: "edge-db-1", Tags: edgeTags("edge-db"), PublicIP: true, PrivateIP: edgeDBAddress},
		{VNetID: vnet, Name: "edge-twin-1", Tags: edgeTags("edge-twin"), PrivateIP: edgeTwinAddress},
	} {
		vm.Tags["Name"] = vm.Name
		if _, err := emu.AddVM(vm); err != nil {
			return err
		}
	}
	return nil
}
