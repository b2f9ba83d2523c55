package main

import (
	"fmt"

	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
)

// network is one seeded VPC (VNet) and what its VMs are.
type network struct {
	name, cidr, env, role string
}

// awsNetworks and azureNetworks are the seeded VPCs and VNets. Their
// CIDRs are distinct, so that the VMs of both clouds can share one
// network (the sandbox plays the agented ones on one bridge) and a policy
// can name a VM of either cloud by its address.
var (
	awsNetworks = []network{
		{name: "prod", cidr: "10.10.0.0/16", env: "prod", role: "web"},
		{name: "dev", cidr: "10.20.0.0/16", env: "dev", role: "build"},
	}
	azureNetworks = []network{
		{name: "prod", cidr: "10.30.0.0/16", env: "prod", role: "web"},
		{name: "dev", cidr: "10.40.0.0/16", env: "dev", role: "build"},
	}
)

// tags of the n-th VM of net: plain ones, and one whose key and value are
// not valid label values, to show their normalisation.
func tags(net network, n int) map[string]string {
	return map[string]string{"env": net.env, "role": net.role, "Cost Center": fmt.Sprintf("R&D / %d", 40+n)}
}

func seedAWS(emu *awsemu.Server, perVPC int) error {
	for _, net := range awsNetworks {
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
		if err := seedAWSServices(emu, net, vpc); err != nil {
			return err
		}
	}
	return nil
}

// seedAWSServices adds to a VPC an internal application load balancer and a
// PostgreSQL DB instance in prod, an internet-facing network load balancer
// in dev.
func seedAWSServices(emu *awsemu.Server, net network, vpc string) error {
	if net.name != "prod" {
		_, err := emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: awsRegion, VPCID: vpc, Name: net.name + "-ingress", Type: "network",
			Listeners: []awsemu.Listener{{Protocol: "TCP", Port: 443}}, Tags: map[string]string{"env": net.env}})
		return err
	}
	if _, err := emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: awsRegion, VPCID: vpc, Name: net.name + "-web", Internal: true,
		Listeners: []awsemu.Listener{{Protocol: "HTTPS", Port: 443}, {Protocol: "HTTP", Port: 80}},
		Tags:      map[string]string{"env": net.env, "role": net.role}}); err != nil {
		return err
	}
	_, err := emu.AddDBInstance(awsemu.DBInstanceSpec{Region: awsRegion, VPCID: vpc, Identifier: net.name + "-orders",
		Tags: map[string]string{"env": net.env, "role": "db"}})
	return err
}

func seedAzure(emu *azureemu.Server, perVNet int) error {
	for _, net := range azureNetworks {
		vnet, err := emu.AddVNet(azureemu.VNetSpec{Location: azureRegion, Name: net.name, Prefix: net.cidr, Tags: map[string]string{"env": net.env}})
		if err != nil {
			return err
		}
		for n := range perVNet {
			name := fmt.Sprintf("%s-%s-%d", net.name, net.role, n+1)
			// A Name tag as AWS's instances have: a policy selects a VM of
			// either cloud by tag.cloud.antreaplus.io/Name.
			vmTags := tags(net, n)
			vmTags["Name"] = name
			spec := azureemu.VMSpec{VNetID: vnet, Name: name, Tags: vmTags, PublicIP: n == 0}
			if _, err := emu.AddVM(spec); err != nil {
				return err
			}
		}
		if net.name == "prod" { // an internal load balancer in front of the web VMs
			if _, _, err := emu.AddLoadBalancer(azureemu.LoadBalancerSpec{VNetID: vnet, Name: net.name + "-web-ilb",
				Rules: []azureemu.LBRule{{Name: "https", Protocol: "Tcp", Port: 443}, {Name: "http", Protocol: "Tcp", Port: 80}},
				Tags:  map[string]string{"env": net.env, "role": net.role}}); err != nil {
				return err
			}
		}
	}
	return nil
}
