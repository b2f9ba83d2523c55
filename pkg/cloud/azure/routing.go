package azure

import (
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// peerings are a VNet's Connected peerings: flat connections to the
// remote VNets (their address spaces as the peering reports them).
func peerings(list []*armnetwork.VirtualNetworkPeering) []provider.Peering {
	var out []provider.Peering
	for _, p := range list {
		if p == nil || p.Properties == nil || p.Properties.PeeringState == nil ||
			*p.Properties.PeeringState != armnetwork.VirtualNetworkPeeringStateConnected || p.Properties.RemoteVirtualNetwork == nil {
			continue
		}
		peer := provider.Peering{ID: str(p.ID), Via: "VNetPeering", PeerVPCID: str(p.Properties.RemoteVirtualNetwork.ID)}
		space := p.Properties.RemoteAddressSpace
		if space == nil {
			space = p.Properties.RemoteVirtualNetworkAddressSpace
		}
		if space != nil {
			for _, prefix := range space.AddressPrefixes {
				peer.PeerCIDRs = append(peer.PeerCIDRs, str(prefix))
			}
		}
		out = append(out, peer)
	}
	return out
}

// applyRouting gives each NIC its egress addresses: the public IPs of the
// NAT gateway its subnet is associated with (on Azure a NAT gateway takes
// precedence over the NIC's own public IP for outbound traffic), else its
// own public IPs.
func applyRouting(s *provider.Snapshot, l listing, publicIPs map[string]string) {
	natOfSubnet := map[string]string{}
	for _, v := range l.vnets {
		if v == nil || v.Properties == nil {
			continue
		}
		for _, sub := range v.Properties.Subnets {
			if sub != nil && sub.Properties != nil && sub.Properties.NatGateway != nil {
				natOfSubnet[strings.ToLower(str(sub.ID))] = str(sub.Properties.NatGateway.ID)
			}
		}
	}
	natIPs := map[string][]string{}
	for _, g := range l.nats {
		if g == nil || g.Properties == nil {
			continue
		}
		for _, ref := range g.Properties.PublicIPAddresses {
			if ip := publicIPs[strings.ToLower(str(ref.ID))]; ip != "" {
				natIPs[strings.ToLower(str(g.ID))] = append(natIPs[strings.ToLower(str(g.ID))], ip)
			}
		}
	}
	for i := range s.VMs {
		for j := range s.VMs[i].NICs {
			n := &s.VMs[i].NICs[j]
			if nat := natOfSubnet[strings.ToLower(n.SubnetID)]; nat != "" {
				n.NATGatewayID, n.EgressIPs = nat, append([]string(nil), natIPs[strings.ToLower(nat)]...)
				continue
			}
			n.EgressIPs = append([]string(nil), n.PublicIPs...)
		}
	}
}
