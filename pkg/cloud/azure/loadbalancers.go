package azure

import (
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// convertLoadBalancer returns the cloud-native service of a load balancer
// with a private frontend (an internal load balancer): its frontends'
// private IPs, the VNet of the first one's subnet, and the frontend ports
// of the load-balancing rules on private frontends. A load balancer with
// only public frontends is in no VNet and is left out.
func convertLoadBalancer(lb *armnetwork.LoadBalancer, publicIPs map[string]string) (provider.Service, bool) {
	svc := provider.Service{ID: str(lb.ID), Name: str(lb.Name), Kind: provider.AzureLoadBalancer, Tags: tags(lb.Tags)}
	if lb.Properties == nil {
		return svc, false
	}
	private := map[string]bool{} // frontend ids, lowercased
	for _, fe := range lb.Properties.FrontendIPConfigurations {
		if fe == nil || fe.Properties == nil {
			continue
		}
		p := fe.Properties
		if ip := str(p.PrivateIPAddress); ip != "" && p.Subnet != nil {
			svc.PrivateIPs = append(svc.PrivateIPs, ip)
			private[strings.ToLower(str(fe.ID))] = true
			if svc.VPCID == "" {
				svc.VPCID = vnetOfSubnet(str(p.Subnet.ID))
			}
		}
		if p.PublicIPAddress != nil {
			if ip := publicIPs[strings.ToLower(str(p.PublicIPAddress.ID))]; ip != "" {
				svc.PublicIPs = append(svc.PublicIPs, ip)
			}
		}
	}
	pools := map[string][]string{} // pool id, lowercased -> NIC ids
	for _, pool := range lb.Properties.BackendAddressPools {
		if pool == nil || pool.Properties == nil {
			continue
		}
		for _, ipc := range pool.Properties.BackendIPConfigurations {
			if ipc == nil {
				continue
			}
			if nic, _, ok := strings.Cut(str(ipc.ID), "/ipConfigurations/"); ok {
				pools[strings.ToLower(str(pool.ID))] = append(pools[strings.ToLower(str(pool.ID))], nic)
			}
		}
	}
	for _, r := range lb.Properties.LoadBalancingRules {
		if r == nil || r.Properties == nil || r.Properties.FrontendIPConfiguration == nil ||
			!private[strings.ToLower(str(r.Properties.FrontendIPConfiguration.ID))] {
			continue
		}
		svc.Ports = appendPorts(svc.Ports, str(r.Name), r.Properties, r.Properties.FrontendPort)
		if r.Properties.BackendAddressPool != nil {
			svc.BackendInterfaces = append(svc.BackendInterfaces, pools[strings.ToLower(str(r.Properties.BackendAddressPool.ID))]...)
			backend := r.Properties.BackendPort
			if backend == nil || *backend == 0 {
				backend = r.Properties.FrontendPort
			}
			svc.BackendPorts = appendPorts(svc.BackendPorts, str(r.Name), r.Properties, backend)
		}
	}
	slices.Sort(svc.BackendInterfaces)
	svc.BackendInterfaces = slices.Compact(svc.BackendInterfaces)
	return svc, svc.VPCID != ""
}

// appendPorts adds a port of a rule (its frontend or backend port), once
// per protocol; "All" is TCP and UDP, and port 0 (HA ports: every port)
// names no port.
func appendPorts(ports []provider.Port, name string, p *armnetwork.LoadBalancingRulePropertiesFormat, of *int32) []provider.Port {
	port := int32(0)
	if of != nil {
		port = *of
	}
	if port == 0 || p.Protocol == nil {
		return ports
	}
	var protocols []string
	switch *p.Protocol {
	case armnetwork.TransportProtocolTCP:
		protocols = []string{"TCP"}
	case armnetwork.TransportProtocolUDP:
		protocols = []string{"UDP"}
	case armnetwork.TransportProtocolAll:
		protocols = []string{"TCP", "UDP"}
	}
	for _, proto := range protocols {
		if !slices.ContainsFunc(ports, func(p provider.Port) bool { return p.Protocol == proto && p.Port == port }) {
			ports = append(ports, provider.Port{Name: name, Protocol: proto, Port: port})
		}
	}
	return ports
}
