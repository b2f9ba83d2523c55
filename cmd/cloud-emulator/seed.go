package main

import (
	"fmt"

	"antreaplus.io/antreaplus/pkg/cloud/awsemu"
	"antreaplus.io/antreaplus/pkg/cloud/azureemu"
)

// network is one seeded VPC (VNet) and what its VMs are.
type network struct {
	name, cidr, env, role string
}

var networks = []network{
	{name: "prod", cidr: "10.10.0.0/16", env: "prod", role: "web"},
	{name: "dev", cidr: "10.20.0.0/16", env: "dev", role: "build"},
}

// tags of the n-th VM of net: plain ones, and one whose key and value are
// not valid label values, to show their normalisation.
func tags(net network, n int) map[string]string {
	return map[string]string{"env": net.env, "role": net.role, "Cost Center": fmt.Sprintf("R&D / %d", 40+n)}
}

func seedAWS(emu *awsemu.Server, perVPC int) error {
	for _, net := range networks {
		vpc, err := emu.AddVPC(awsemu.VPCSpec{Region: awsRegion, CIDR: net.cidr, Name: net.name, Tags: map[string]string{"env": net.env}})
		if err != nil {
			return err
		}
		for n := range perVPC {
			spec := awsemu.InstanceSpec{Region: awsRegion, VPCID: vpc, Name: fmt.Sprintf("%s-%s-%d", net.name, net.role, n+1),
				Tags: tags(net, n), PublicIP: n == 0}
			if _, err := emu.AddInstance(spec); err != nil {
				return err
			}
		}
	}
	return nil
}

func seedAzure(emu *azureemu.Server, perVNet int) error {
	for _, net := range networks {
		vnet, err := emu.AddVNet(azureemu.VNetSpec{Location: azureRegion, Name: net.name, Prefix: net.cidr, Tags: map[string]string{"env": net.env}})
		if err != nil {
			return err
		}
		for n := range perVNet {
			spec := azureemu.VMSpec{VNetID: vnet, Name: fmt.Sprintf("%s-%s-%d", net.name, net.role, n+1), Tags: tags(net, n), PublicIP: n == 0}
			if _, err := emu.AddVM(spec); err != nil {
				return err
			}
		}
	}
	return nil
}
