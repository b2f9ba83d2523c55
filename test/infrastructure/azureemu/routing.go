package azureemu

import (
	"fmt"
	"net/netip"
	"strings"
)

// The emulated routing of a VNet (docs/networks.md): its one subnet may be
// associated with a NAT gateway (every VM of it leaves with the gateway's
// public address, even one with a public IP of its own, as on Azure), and
// VNet peerings connect two VNets of the subscription (Connected on both).

// natGateway is a NAT gateway and the public IP resources it uses.
type natGateway struct {
	id, name, location string
	publicIPIDs        []string
}

// vnetPeering is one side of a VNet peering.
type vnetPeering struct {
	id, name, remoteID string
}

type natGatewayJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Type       string `json:"type"`
	Location   string `json:"location"`
	Properties struct {
		PublicIPAddresses []idRef `json:"publicIpAddresses"`
		Subnets           []idRef `json:"subnets,omitempty"`
	} `json:"properties"`
}

type addressSpaceJSON struct {
	AddressPrefixes []string `json:"addressPrefixes"`
}

type peeringJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Properties struct {
		PeeringState         string           `json:"peeringState"`
		RemoteVirtualNetwork idRef            `json:"remoteVirtualNetwork"`
		RemoteAddressSpace   addressSpaceJSON `json:"remoteAddressSpace"`
	} `json:"properties"`
}

// AddNATGateway adds a NAT gateway with a public IP of address to a
// VNet's subnet, and returns the gateway's id.
func (s *Server) AddNATGateway(vnetID, name, address string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	vn := s.vnets[strings.ToLower(vnetID)]
	if vn == nil {
		return "", fmt.Errorf("VNet %q not found", vnetID)
	}
	if _, err := netip.ParseAddr(address); err != nil {
		return "", fmt.Errorf("NAT gateway address %q: %w", address, err)
	}
	rg := resourceGroupOf(vn.id)
	pip := &publicIP{id: s.resourceID(rg, vn.location, "Microsoft.Network/publicIPAddresses", name+"-ip"), name: name + "-ip",
		location: vn.location, address: address}
	s.publicIPs[strings.ToLower(pip.id)] = pip
	g := &natGateway{id: s.resourceID(rg, vn.location, "Microsoft.Network/natGateways", name), name: name, location: vn.location,
		publicIPIDs: []string{pip.id}}
	s.natGateways[strings.ToLower(g.id)] = g
	vn.natGatewayID = g.id
	return g.id, nil
}

// SetNATGatewayAddress gives a NAT gateway's public IP another address.
func (s *Server) SetNATGatewayAddress(natID, address string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.natGateways[strings.ToLower(natID)]
	if g == nil {
		return fmt.Errorf("NAT gateway %q not found", natID)
	}
	if _, err := netip.ParseAddr(address); err != nil {
		return fmt.Errorf("NAT gateway address %q: %w", address, err)
	}
	s.publicIPs[strings.ToLower(g.publicIPIDs[0])].address = address
	return nil
}

// AddVNetPeering peers two VNets (a Connected peering on each side).
func (s *Server) AddVNetPeering(a, b string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	va, vb := s.vnets[strings.ToLower(a)], s.vnets[strings.ToLower(b)]
	if va == nil || vb == nil {
		return fmt.Errorf("VNets %q and %q: not both found", a, b)
	}
	va.peerings = append(va.peerings, vnetPeering{id: va.id + "/virtualNetworkPeerings/to-" + vb.name, name: "to-" + vb.name, remoteID: vb.id})
	vb.peerings = append(vb.peerings, vnetPeering{id: vb.id + "/virtualNetworkPeerings/to-" + va.name, name: "to-" + va.name, remoteID: va.id})
	return nil
}

// RemoveVNetPeering deletes the peering of two VNets, both sides.
func (s *Server) RemoveVNetPeering(a, b string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	drop := func(v *vnet, remote string) {
		if v == nil {
			return
		}
		kept := v.peerings[:0]
		for _, p := range v.peerings {
			if !strings.EqualFold(p.remoteID, remote) {
				kept = append(kept, p)
			}
		}
		v.peerings = kept
	}
	drop(s.vnets[strings.ToLower(a)], b)
	drop(s.vnets[strings.ToLower(b)], a)
}

func (s *Server) natGatewayItems() []listItem {
	var out []listItem
	for key, g := range s.natGateways {
		doc := natGatewayJSON{ID: g.id, Name: g.name, Type: "Microsoft.Network/natGateways", Location: g.location}
		for _, id := range g.publicIPIDs {
			doc.Properties.PublicIPAddresses = append(doc.Properties.PublicIPAddresses, idRef{ID: id})
		}
		for _, v := range s.vnets {
			if strings.EqualFold(v.natGatewayID, g.id) {
				doc.Properties.Subnets = append(doc.Properties.Subnets, idRef{ID: v.subnetID})
			}
		}
		out = append(out, listItem{key: key, doc: doc})
	}
	return out
}

// peeringsDoc is a VNet's peerings, as its document lists them.
func (s *Server) peeringsDoc(v *vnet) []peeringJSON {
	var out []peeringJSON
	for _, p := range v.peerings {
		doc := peeringJSON{ID: p.id, Name: p.name}
		doc.Properties.PeeringState = "Connected"
		doc.Properties.RemoteVirtualNetwork = idRef{ID: p.remoteID}
		if remote := s.vnets[strings.ToLower(p.remoteID)]; remote != nil {
			doc.Properties.RemoteAddressSpace.AddressPrefixes = []string{remote.prefix}
		}
		out = append(out, doc)
	}
	return out
}
