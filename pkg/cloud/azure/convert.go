package azure

import (
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v6"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// snapshot keeps what of the listing is in region and joins VMs with their
// NICs, NICs with their public IPs, and subnets with their VNets.
func snapshot(region string, l listing) *provider.Snapshot {
	s := &provider.Snapshot{Cloud: provider.Azure, Region: region}
	in := func(loc *string) bool { return normaliseLocation(str(loc)) == normaliseLocation(region) }
	for _, v := range l.vnets {
		if v != nil && in(v.Location) {
			s.VPCs = append(s.VPCs, convertVNet(v))
		}
	}
	nics := make(map[string]*armnetwork.Interface, len(l.nics))
	for _, n := range l.nics {
		if n != nil {
			nics[strings.ToLower(str(n.ID))] = n
		}
	}
	publicIPs := make(map[string]string, len(l.publicIPs))
	for _, ip := range l.publicIPs {
		if ip != nil && ip.Properties != nil {
			publicIPs[strings.ToLower(str(ip.ID))] = str(ip.Properties.IPAddress)
		}
	}
	for _, v := range l.vms {
		if v != nil && in(v.Location) {
			s.VMs = append(s.VMs, convertVM(v, nics, publicIPs))
		}
	}
	for _, lb := range l.lbs {
		if lb == nil || !in(lb.Location) {
			continue
		}
		if svc, ok := convertLoadBalancer(lb, publicIPs); ok {
			s.Services = append(s.Services, svc)
		}
	}
	applyRouting(s, l, publicIPs)
	s.Sort()
	return s
}

func convertVNet(v *armnetwork.VirtualNetwork) provider.VPC {
	out := provider.VPC{ID: str(v.ID), Name: str(v.Name), Tags: tags(v.Tags)}
	if v.Properties != nil && v.Properties.AddressSpace != nil {
		for _, p := range v.Properties.AddressSpace.AddressPrefixes {
			out.CIDRs = append(out.CIDRs, str(p))
		}
	}
	if v.Properties != nil {
		out.Peerings = peerings(v.Properties.VirtualNetworkPeerings)
	}
	return out
}

func convertVM(v *armcompute.VirtualMachine, nics map[string]*armnetwork.Interface, publicIPs map[string]string) provider.VM {
	vm := provider.VM{ID: str(v.ID), Name: str(v.Name), Tags: tags(v.Tags), State: provider.VMUnknown}
	if len(v.Zones) > 0 {
		vm.Zone = str(v.Zones[0])
	}
	p := v.Properties
	if p == nil {
		return vm
	}
	if p.HardwareProfile != nil && p.HardwareProfile.VMSize != nil {
		vm.InstanceType = string(*p.HardwareProfile.VMSize)
	}
	vm.State = vmState(p)
	if p.NetworkProfile != nil {
		refs := slices.Clone(p.NetworkProfile.NetworkInterfaces)
		slices.SortStableFunc(refs, func(a, b *armcompute.NetworkInterfaceReference) int {
			return rank(isPrimaryRef(b)) - rank(isPrimaryRef(a))
		})
		for i, ref := range refs {
			n := nics[strings.ToLower(str(ref.ID))]
			if n == nil {
				continue // listed before its NIC was; the next poll has it
			}
			nic := convertNIC(n, publicIPs)
			nic.Primary = i == 0
			vm.NICs = append(vm.NICs, nic)
		}
	}
	if len(vm.NICs) > 0 {
		vm.VPCID = vm.NICs[0].VPCID
	}
	return vm
}

func isPrimaryRef(r *armcompute.NetworkInterfaceReference) bool {
	return r != nil && r.Properties != nil && boolean(r.Properties.Primary)
}

func rank(b bool) int {
	if b {
		return 1
	}
	return 0
}

func convertNIC(n *armnetwork.Interface, publicIPs map[string]string) provider.NIC {
	nic := provider.NIC{ID: str(n.ID), Tags: tags(n.Tags)}
	p := n.Properties
	if p == nil {
		return nic
	}
	nic.MAC = strings.ToLower(strings.ReplaceAll(str(p.MacAddress), "-", ":"))
	if p.NetworkSecurityGroup != nil {
		nic.SecurityGroupIDs = append(nic.SecurityGroupIDs, str(p.NetworkSecurityGroup.ID))
	}
	configs := slices.Clone(p.IPConfigurations)
	slices.SortStableFunc(configs, func(a, b *armnetwork.InterfaceIPConfiguration) int {
		return rank(isPrimaryConfig(b)) - rank(isPrimaryConfig(a))
	})
	for _, c := range configs {
		if c == nil || c.Properties == nil {
			continue
		}
		cp := c.Properties
		if ip := str(cp.PrivateIPAddress); ip != "" {
			nic.PrivateIPs = append(nic.PrivateIPs, ip)
		}
		if cp.PublicIPAddress != nil {
			if ip := publicIPs[strings.ToLower(str(cp.PublicIPAddress.ID))]; ip != "" {
				nic.PublicIPs = append(nic.PublicIPs, ip)
			}
		}
		if cp.Subnet != nil && nic.SubnetID == "" {
			nic.SubnetID = str(cp.Subnet.ID)
			nic.VPCID = vnetOfSubnet(nic.SubnetID)
		}
		for _, asg := range cp.ApplicationSecurityGroups {
			if id := str(asg.ID); id != "" && !slices.Contains(nic.SecurityGroupIDs, id) {
				nic.SecurityGroupIDs = append(nic.SecurityGroupIDs, id)
			}
		}
	}
	return nic
}

func isPrimaryConfig(c *armnetwork.InterfaceIPConfiguration) bool {
	return c != nil && c.Properties != nil && boolean(c.Properties.Primary)
}

// vnetOfSubnet is the VNet id of a subnet id (.../virtualNetworks/x/subnets/y).
func vnetOfSubnet(id string) string {
	i := strings.LastIndex(strings.ToLower(id), "/subnets/")
	if i < 0 {
		return ""
	}
	return id[:i]
}

// vmState maps the power state of the instance view, and a VM being
// deleted, to the normalised states.
func vmState(p *armcompute.VirtualMachineProperties) provider.VMState {
	if strings.EqualFold(str(p.ProvisioningState), "Deleting") {
		return provider.VMShuttingDown
	}
	if p.InstanceView == nil {
		return provider.VMUnknown
	}
	for _, s := range p.InstanceView.Statuses {
		code, ok := strings.CutPrefix(strings.ToLower(str(s.Code)), "powerstate/")
		if !ok {
			continue
		}
		switch code {
		case "starting":
			return provider.VMPending
		case "running":
			return provider.VMRunning
		case "stopping", "deallocating":
			return provider.VMStopping
		case "stopped", "deallocated":
			return provider.VMStopped
		}
		return provider.VMUnknown
	}
	return provider.VMUnknown
}

func tags(t map[string]*string) map[string]string {
	if len(t) == 0 {
		return nil
	}
	out := make(map[string]string, len(t))
	for k, v := range t {
		out[k] = str(v)
	}
	return out
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func boolean(p *bool) bool { return p != nil && *p }
