package aws

import (
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// snapshot joins what the describes returned into one region's snapshot.
func snapshot(region string, vpcs []types.Vpc, instances []types.Instance, enis []types.NetworkInterface) *provider.Snapshot {
	s := &provider.Snapshot{Cloud: provider.AWS, Region: region}
	for _, v := range vpcs {
		s.VPCs = append(s.VPCs, convertVPC(v))
	}
	byID := make(map[string]*types.NetworkInterface, len(enis))
	for i := range enis {
		byID[aws.ToString(enis[i].NetworkInterfaceId)] = &enis[i]
	}
	seen := make(map[string]bool, len(instances))
	for _, i := range instances {
		id := aws.ToString(i.InstanceId)
		if seen[id] {
			continue // listed twice across pages; the first is as fresh
		}
		seen[id] = true
		s.VMs = append(s.VMs, convertInstance(i, byID))
	}
	s.Sort()
	return s
}

func convertVPC(v types.Vpc) provider.VPC {
	tags := tagMap(v.Tags)
	out := provider.VPC{ID: aws.ToString(v.VpcId), Name: tags["Name"], Tags: tags}
	if c := aws.ToString(v.CidrBlock); c != "" {
		out.CIDRs = append(out.CIDRs, c)
	}
	for _, a := range v.CidrBlockAssociationSet {
		if c := aws.ToString(a.CidrBlock); c != "" && !slices.Contains(out.CIDRs, c) {
			out.CIDRs = append(out.CIDRs, c)
		}
	}
	return out
}

func convertInstance(i types.Instance, enis map[string]*types.NetworkInterface) provider.VM {
	tags := tagMap(i.Tags)
	vm := provider.VM{
		ID:           aws.ToString(i.InstanceId),
		Name:         tags["Name"],
		VPCID:        aws.ToString(i.VpcId),
		InstanceType: string(i.InstanceType),
		State:        vmState(i.State),
		Tags:         tags,
	}
	if i.Placement != nil {
		vm.Zone = aws.ToString(i.Placement.AvailabilityZone)
	}
	nics := slices.Clone(i.NetworkInterfaces)
	slices.SortStableFunc(nics, func(a, b types.InstanceNetworkInterface) int {
		return int(deviceIndex(a) - deviceIndex(b))
	})
	for _, n := range nics {
		vm.NICs = append(vm.NICs, convertNIC(n, enis[aws.ToString(n.NetworkInterfaceId)]))
	}
	return vm
}

func deviceIndex(n types.InstanceNetworkInterface) int32 {
	if n.Attachment == nil {
		return 1 << 30
	}
	return aws.ToInt32(n.Attachment.DeviceIndex)
}

// convertNIC takes the interface as the instance describes it, and its own
// tags from DescribeNetworkInterfaces when that listed it.
func convertNIC(n types.InstanceNetworkInterface, eni *types.NetworkInterface) provider.NIC {
	nic := provider.NIC{
		ID:       aws.ToString(n.NetworkInterfaceId),
		Primary:  deviceIndex(n) == 0,
		VPCID:    aws.ToString(n.VpcId),
		SubnetID: aws.ToString(n.SubnetId),
		MAC:      strings.ToLower(aws.ToString(n.MacAddress)),
	}
	addPublic := func(a *types.InstanceNetworkInterfaceAssociation) {
		if a != nil && aws.ToString(a.PublicIp) != "" && !slices.Contains(nic.PublicIPs, *a.PublicIp) {
			nic.PublicIPs = append(nic.PublicIPs, *a.PublicIp)
		}
	}
	ips := slices.Clone(n.PrivateIpAddresses)
	slices.SortStableFunc(ips, func(a, b types.InstancePrivateIpAddress) int {
		return boolRank(aws.ToBool(b.Primary)) - boolRank(aws.ToBool(a.Primary))
	})
	for _, ip := range ips {
		nic.PrivateIPs = append(nic.PrivateIPs, aws.ToString(ip.PrivateIpAddress))
		addPublic(ip.Association)
	}
	if len(nic.PrivateIPs) == 0 && aws.ToString(n.PrivateIpAddress) != "" {
		nic.PrivateIPs = []string{*n.PrivateIpAddress}
	}
	for _, ip := range n.Ipv6Addresses {
		nic.PrivateIPs = append(nic.PrivateIPs, aws.ToString(ip.Ipv6Address))
	}
	addPublic(n.Association)
	for _, g := range n.Groups {
		nic.SecurityGroupIDs = append(nic.SecurityGroupIDs, aws.ToString(g.GroupId))
	}
	slices.Sort(nic.SecurityGroupIDs)
	if eni != nil {
		nic.Tags = tagMap(eni.TagSet)
	}
	return nic
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

func vmState(s *types.InstanceState) provider.VMState {
	if s == nil {
		return provider.VMUnknown
	}
	switch s.Name {
	case types.InstanceStateNamePending:
		return provider.VMPending
	case types.InstanceStateNameRunning:
		return provider.VMRunning
	case types.InstanceStateNameStopping:
		return provider.VMStopping
	case types.InstanceStateNameStopped:
		return provider.VMStopped
	case types.InstanceStateNameShuttingDown:
		return provider.VMShuttingDown
	case types.InstanceStateNameTerminated:
		return provider.VMTerminated
	}
	return provider.VMUnknown
}

func tagMap(tags []types.Tag) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	out := make(map[string]string, len(tags))
	for _, t := range tags {
		out[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return out
}
