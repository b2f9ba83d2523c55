package awsemu

import (
	"encoding/xml"
	"net/netip"
	"strings"
)

// The EC2 actions that change routing, as an operator's tools call them:
// AllocateAddress (an elastic IP), CreateNatGateway, ReplaceRoute (the
// default route of a VPC's route table to a NAT gateway or its internet
// gateway), CreateVpcPeeringConnection, AcceptVpcPeeringConnection and
// DeleteVpcPeeringConnection.

type allocateAddressResponse struct {
	XMLName xml.Name `xml:"AllocateAddressResponse"`
	responseMeta
	PublicIP     string `xml:"publicIp"`
	AllocationID string `xml:"allocationId"`
	Domain       string `xml:"domain"`
}

// allocationID is the id of the elastic IP address a.
func allocationID(a string) string { return "eipalloc-" + strings.ReplaceAll(a, ".", "x") }

// addressOf is the address of an allocation id, "" for another id.
func addressOf(id string) string {
	s, ok := strings.CutPrefix(id, "eipalloc-")
	if !ok {
		return ""
	}
	a, err := netip.ParseAddr(strings.ReplaceAll(s, "x", "."))
	if err != nil {
		return ""
	}
	return a.String()
}

func (s *Server) allocateAddress(req *request) (any, *apiError) {
	ip := req.params.Get("Address")
	if ip == "" {
		ip = s.newPublicIP()
	} else if _, err := netip.ParseAddr(ip); err != nil {
		return nil, errInvalidParameterValue("Invalid IPv4 address: %s", ip)
	}
	return &allocateAddressResponse{PublicIP: ip, AllocationID: allocationID(ip), Domain: "vpc"}, nil
}

type createNatGatewayResponse struct {
	XMLName xml.Name `xml:"CreateNatGatewayResponse"`
	responseMeta
	NatGateway natGatewayXML `xml:"natGateway"`
}

func (s *Server) createNatGateway(req *request) (any, *apiError) {
	subnet, alloc := req.params.Get("SubnetId"), req.params.Get("AllocationId")
	var v *vpc
	for _, c := range req.region.vpcs {
		if c.subnetID == subnet {
			v = c
		}
	}
	if v == nil {
		return nil, errClient("InvalidSubnetID.NotFound", "The subnet ID '%s' does not exist", subnet)
	}
	ip := addressOf(alloc)
	if ip == "" {
		return nil, errClient("InvalidAllocationID.NotFound", "The allocation ID '%s' does not exist", alloc)
	}
	private, err := v.allocIP()
	if err != nil {
		return nil, errClient("InsufficientFreeAddressesInSubnet", "%v", err)
	}
	g := &natGateway{id: s.newID("nat"), vpcID: v.id, subnetID: subnet, publicIP: ip, privateIP: private}
	req.region.natGateways[g.id] = g
	return &createNatGatewayResponse{NatGateway: natGatewayXML{NatGatewayID: g.id, VpcID: g.vpcID, SubnetID: g.subnetID, State: "available",
		Addresses: []natGatewayAddressXML{{PublicIP: g.publicIP, PrivateIP: g.privateIP, IsPrimary: true, Status: "succeeded"}}}}, nil
}

func (s *Server) replaceRoute(req *request) (any, *apiError) {
	rt, dest := req.params.Get("RouteTableId"), req.params.Get("DestinationCidrBlock")
	var v *vpc
	for _, c := range req.region.vpcs {
		if routeTableID(c.id) == rt {
			v = c
		}
	}
	if v == nil {
		return nil, errClient("InvalidRouteTableID.NotFound", "The routeTable ID '%s' does not exist", rt)
	}
	if dest != "0.0.0.0/0" {
		return nil, errInvalidParameterValue("the emulator replaces only the default route (0.0.0.0/0), not %s", dest)
	}
	switch nat, gw := req.params.Get("NatGatewayId"), req.params.Get("GatewayId"); {
	case nat != "":
		if g := req.region.natGateways[nat]; g == nil || g.vpcID != v.id {
			return nil, errClient("InvalidNatGatewayID.NotFound", "The natGateway ID '%s' does not exist in %s", nat, v.id)
		}
		v.natGatewayID = nat
	case gw == "igw-"+strings.TrimPrefix(v.id, "vpc-"):
		v.natGatewayID = ""
	default:
		return nil, errInvalidParameterValue("name a NAT gateway of %s, or its internet gateway %s", v.id, "igw-"+strings.TrimPrefix(v.id, "vpc-"))
	}
	return &returnResponse{XMLName: xml.Name{Local: "ReplaceRouteResponse"}, Return: true}, nil
}

type peeringResponse struct {
	XMLName xml.Name
	responseMeta
	Peering vpcPeeringXML `xml:"vpcPeeringConnection"`
}

func (s *Server) createVpcPeering(req *request) (any, *apiError) {
	a, b := req.params.Get("VpcId"), req.params.Get("PeerVpcId")
	for _, id := range []string{a, b} {
		if req.region.vpcs[id] == nil {
			return nil, errClient("InvalidVpcID.NotFound", "The vpc ID '%s' does not exist", id)
		}
	}
	p := &peering{id: s.newID("pcx"), requester: a, accepter: b, status: "pending-acceptance"}
	req.region.peerings[p.id] = p
	return &peeringResponse{XMLName: xml.Name{Local: "CreateVpcPeeringConnectionResponse"}, Peering: s.peeringXML(req.region, p)}, nil
}

func (s *Server) acceptVpcPeering(req *request) (any, *apiError) {
	p := req.region.peerings[req.params.Get("VpcPeeringConnectionId")]
	if p == nil || p.status != "pending-acceptance" {
		return nil, errClient("InvalidVpcPeeringConnectionID.NotFound", "The vpcPeeringConnection ID '%s' does not exist or is not pending acceptance",
			req.params.Get("VpcPeeringConnectionId"))
	}
	p.status = "active"
	return &peeringResponse{XMLName: xml.Name{Local: "AcceptVpcPeeringConnectionResponse"}, Peering: s.peeringXML(req.region, p)}, nil
}

func (s *Server) deleteVpcPeering(req *request) (any, *apiError) {
	p := req.region.peerings[req.params.Get("VpcPeeringConnectionId")]
	if p == nil || p.status == "deleted" {
		return nil, errClient("InvalidVpcPeeringConnectionID.NotFound", "The vpcPeeringConnection ID '%s' does not exist", req.params.Get("VpcPeeringConnectionId"))
	}
	p.status = "deleted"
	return &returnResponse{XMLName: xml.Name{Local: "DeleteVpcPeeringConnectionResponse"}, Return: true}, nil
}
