package awsemu

import (
	"encoding/xml"
	"fmt"
	"net/netip"
	"strings"
)

// The emulated routing of a VPC: its one subnet routes 0.0.0.0/0 to the
// VPC's internet gateway, or, once a NAT gateway is added, through it; an
// active VPC peering adds a route to the peer's CIDR. DescribeRouteTables
// shows one main route table per VPC, DescribeNatGateways the gateways,
// DescribeVpcPeeringConnections the peerings.

// natGateway is a NAT gateway in a VPC's subnet.
type natGateway struct {
	id, vpcID, subnetID string
	publicIP, privateIP string
}

// peering is a VPC peering connection between two VPCs of a region.
type peering struct {
	id, requester, accepter string
	// status is active, or deleted once removed.
	status string
}

// lockRegion takes the server's lock for an admin call on a region; the
// caller runs the returned unlock (nothing to unlock on an error).
func (s *Server) lockRegion(name string) (*region, func(), error) {
	s.mu.Lock()
	reg, err := s.region(name)
	if err != nil {
		s.mu.Unlock()
		return nil, nil, err
	}
	return reg, s.mu.Unlock, nil
}

// AddNATGateway adds a NAT gateway with publicIP to a VPC, and routes the
// VPC's subnet to the internet through it: its instances' traffic leaves
// with publicIP. It returns the gateway's id.
func (s *Server) AddNATGateway(regionName, vpcID, publicIP string) (string, error) {
	reg, unlock, err := s.lockRegion(regionName)
	if err != nil {
		return "", err
	}
	defer unlock()
	v := reg.vpcs[vpcID]
	if v == nil {
		return "", fmt.Errorf("VPC %s not found in %s", vpcID, regionName)
	}
	if _, err := netip.ParseAddr(publicIP); err != nil {
		return "", fmt.Errorf("NAT gateway address %q: %w", publicIP, err)
	}
	private, err := v.allocIP()
	if err != nil {
		return "", err
	}
	g := &natGateway{id: s.newID("nat"), vpcID: vpcID, subnetID: v.subnetID, publicIP: publicIP, privateIP: private}
	reg.natGateways[g.id] = g
	v.natGatewayID = g.id
	return g.id, nil
}

// SetNATGatewayAddress gives a NAT gateway another public address, as
// replacing its elastic IP does.
func (s *Server) SetNATGatewayAddress(regionName, natID, publicIP string) error {
	reg, unlock, err := s.lockRegion(regionName)
	if err != nil {
		return err
	}
	defer unlock()
	g := reg.natGateways[natID]
	if g == nil {
		return fmt.Errorf("NAT gateway %s not found in %s", natID, regionName)
	}
	if _, err := netip.ParseAddr(publicIP); err != nil {
		return fmt.Errorf("NAT gateway address %q: %w", publicIP, err)
	}
	g.publicIP = publicIP
	return nil
}

// AddVPCPeering adds an active peering connection between two VPCs of a
// region and returns its id.
func (s *Server) AddVPCPeering(regionName, requesterVPC, accepterVPC string) (string, error) {
	reg, unlock, err := s.lockRegion(regionName)
	if err != nil {
		return "", err
	}
	defer unlock()
	for _, id := range []string{requesterVPC, accepterVPC} {
		if reg.vpcs[id] == nil {
			return "", fmt.Errorf("VPC %s not found in %s", id, regionName)
		}
	}
	p := &peering{id: s.newID("pcx"), requester: requesterVPC, accepter: accepterVPC, status: "active"}
	reg.peerings[p.id] = p
	return p.id, nil
}

// DeleteVPCPeering deletes a peering connection: it shows as deleted.
func (s *Server) DeleteVPCPeering(regionName, id string) error {
	reg, unlock, err := s.lockRegion(regionName)
	if err != nil {
		return err
	}
	defer unlock()
	p := reg.peerings[id]
	if p == nil {
		return fmt.Errorf("VPC peering connection %s not found in %s", id, regionName)
	}
	p.status = "deleted"
	return nil
}

type natGatewayAddressXML struct {
	PublicIP  string `xml:"publicIp"`
	PrivateIP string `xml:"privateIp"`
	IsPrimary bool   `xml:"isPrimary"`
	Status    string `xml:"status"`
}

type natGatewayXML struct {
	NatGatewayID string                 `xml:"natGatewayId"`
	VpcID        string                 `xml:"vpcId"`
	SubnetID     string                 `xml:"subnetId"`
	State        string                 `xml:"state"`
	Addresses    []natGatewayAddressXML `xml:"natGatewayAddressSet>item"`
}

type describeNatGatewaysResponse struct {
	XMLName xml.Name `xml:"DescribeNatGatewaysResponse"`
	responseMeta
	NatGateways []natGatewayXML `xml:"natGatewaySet>item"`
	NextToken   string          `xml:"nextToken,omitempty"`
}

func (s *Server) describeNatGateways(req *request) (any, *apiError) {
	ids := sortedKeys(req.region.natGateways)
	max, aerr := maxResults(req.params, 5, 1000, s.opts.DefaultPageSize)
	if aerr != nil {
		return nil, aerr
	}
	pageIDs, next, aerr := page(ids, req.params.Get("NextToken"), max)
	if aerr != nil {
		return nil, aerr
	}
	resp := &describeNatGatewaysResponse{NextToken: next}
	for _, id := range pageIDs {
		g := req.region.natGateways[id]
		resp.NatGateways = append(resp.NatGateways, natGatewayXML{NatGatewayID: g.id, VpcID: g.vpcID, SubnetID: g.subnetID, State: "available",
			Addresses: []natGatewayAddressXML{{PublicIP: g.publicIP, PrivateIP: g.privateIP, IsPrimary: true, Status: "succeeded"}}})
	}
	return resp, nil
}

type routeXML struct {
	DestinationCidrBlock   string `xml:"destinationCidrBlock"`
	GatewayID              string `xml:"gatewayId,omitempty"`
	NatGatewayID           string `xml:"natGatewayId,omitempty"`
	VpcPeeringConnectionID string `xml:"vpcPeeringConnectionId,omitempty"`
	State                  string `xml:"state"`
	Origin                 string `xml:"origin"`
}

type routeTableAssociationXML struct {
	RouteTableAssociationID string `xml:"routeTableAssociationId"`
	RouteTableID            string `xml:"routeTableId"`
	Main                    bool   `xml:"main"`
}

type routeTableXML struct {
	RouteTableID string                     `xml:"routeTableId"`
	VpcID        string                     `xml:"vpcId"`
	Associations []routeTableAssociationXML `xml:"associationSet>item"`
	Routes       []routeXML                 `xml:"routeSet>item"`
}

type describeRouteTablesResponse struct {
	XMLName xml.Name `xml:"DescribeRouteTablesResponse"`
	responseMeta
	RouteTables []routeTableXML `xml:"routeTableSet>item"`
	NextToken   string          `xml:"nextToken,omitempty"`
}

// routeTableID is the id of a VPC's main route table.
func routeTableID(vpcID string) string { return "rtb-" + strings.TrimPrefix(vpcID, "vpc-") }

func (s *Server) describeRouteTables(req *request) (any, *apiError) {
	ids := sortedKeys(req.region.vpcs)
	max, aerr := maxResults(req.params, 5, 1000, s.opts.DefaultPageSize)
	if aerr != nil {
		return nil, aerr
	}
	pageIDs, next, aerr := page(ids, req.params.Get("NextToken"), max)
	if aerr != nil {
		return nil, aerr
	}
	resp := &describeRouteTablesResponse{NextToken: next}
	for _, id := range pageIDs {
		v := req.region.vpcs[id]
		rt := routeTableXML{RouteTableID: routeTableID(v.id), VpcID: v.id,
			Associations: []routeTableAssociationXML{{RouteTableAssociationID: "rtbassoc-" + strings.TrimPrefix(v.id, "vpc-"), RouteTableID: routeTableID(v.id), Main: true}},
			Routes:       []routeXML{{DestinationCidrBlock: v.cidr.String(), GatewayID: "local", State: "active", Origin: "CreateRouteTable"}}}
		def := routeXML{DestinationCidrBlock: "0.0.0.0/0", GatewayID: "igw-" + strings.TrimPrefix(v.id, "vpc-"), State: "active", Origin: "CreateRoute"}
		if v.natGatewayID != "" {
			def = routeXML{DestinationCidrBlock: "0.0.0.0/0", NatGatewayID: v.natGatewayID, State: "active", Origin: "CreateRoute"}
		}
		rt.Routes = append(rt.Routes, def)
		for _, pid := range sortedKeys(req.region.peerings) {
			p := req.region.peerings[pid]
			if p.status != "active" || (p.requester != v.id && p.accepter != v.id) {
				continue
			}
			peer := p.accepter
			if peer == v.id {
				peer = p.requester
			}
			rt.Routes = append(rt.Routes, routeXML{DestinationCidrBlock: req.region.vpcs[peer].cidr.String(), VpcPeeringConnectionID: p.id, State: "active", Origin: "CreateRoute"})
		}
		resp.RouteTables = append(resp.RouteTables, rt)
	}
	return resp, nil
}

type cidrBlockXML struct {
	CidrBlock string `xml:"cidrBlock"`
}

type peeringVpcInfoXML struct {
	VpcID      string         `xml:"vpcId"`
	OwnerID    string         `xml:"ownerId"`
	Region     string         `xml:"region"`
	CidrBlock  string         `xml:"cidrBlock"`
	CidrBlocks []cidrBlockXML `xml:"cidrBlockSet>item"`
}

type peeringStatusXML struct {
	Code    string `xml:"code"`
	Message string `xml:"message"`
}

type vpcPeeringXML struct {
	ID        string            `xml:"vpcPeeringConnectionId"`
	Requester peeringVpcInfoXML `xml:"requesterVpcInfo"`
	Accepter  peeringVpcInfoXML `xml:"accepterVpcInfo"`
	Status    peeringStatusXML  `xml:"status"`
}

type describeVpcPeeringsResponse struct {
	XMLName xml.Name `xml:"DescribeVpcPeeringConnectionsResponse"`
	responseMeta
	Peerings  []vpcPeeringXML `xml:"vpcPeeringConnectionSet>item"`
	NextToken string          `xml:"nextToken,omitempty"`
}

func (s *Server) describeVpcPeerings(req *request) (any, *apiError) {
	ids := sortedKeys(req.region.peerings)
	max, aerr := maxResults(req.params, 5, 1000, s.opts.DefaultPageSize)
	if aerr != nil {
		return nil, aerr
	}
	pageIDs, next, aerr := page(ids, req.params.Get("NextToken"), max)
	if aerr != nil {
		return nil, aerr
	}
	resp := &describeVpcPeeringsResponse{NextToken: next}
	for _, id := range pageIDs {
		resp.Peerings = append(resp.Peerings, s.peeringXML(req.region, req.region.peerings[id]))
	}
	return resp, nil
}

func (s *Server) peeringXML(reg *region, p *peering) vpcPeeringXML {
	info := func(id string) peeringVpcInfoXML {
		c := reg.vpcs[id].cidr.String()
		return peeringVpcInfoXML{VpcID: id, OwnerID: s.opts.OwnerID, Region: reg.name, CidrBlock: c, CidrBlocks: []cidrBlockXML{{CidrBlock: c}}}
	}
	return vpcPeeringXML{ID: p.id, Requester: info(p.requester), Accepter: info(p.accepter),
		Status: peeringStatusXML{Code: p.status, Message: strings.ToUpper(p.status[:1]) + p.status[1:]}}
}

// tgwAttachment attaches a VPC to a transit gateway.
type tgwAttachment struct {
	id, tgwID, vpcID string
	// state is available, or deleted once detached.
	state string
}

// AttachToTransitGateway attaches a VPC to transit gateway tgwID (named by
// the caller, e.g. tgw-0a) and returns the attachment's id. VPCs attached
// to one transit gateway route to each other (the default route table
// association and propagation).
func (s *Server) AttachToTransitGateway(regionName, tgwID, vpcID string) (string, error) {
	reg, unlock, err := s.lockRegion(regionName)
	if err != nil {
		return "", err
	}
	defer unlock()
	if reg.vpcs[vpcID] == nil {
		return "", fmt.Errorf("VPC %s not found in %s", vpcID, regionName)
	}
	a := &tgwAttachment{id: s.newID("tgw-attach"), tgwID: tgwID, vpcID: vpcID, state: "available"}
	reg.tgwAttachments[a.id] = a
	return a.id, nil
}

// DetachFromTransitGateway deletes an attachment: it shows as deleted.
func (s *Server) DetachFromTransitGateway(regionName, id string) error {
	reg, unlock, err := s.lockRegion(regionName)
	if err != nil {
		return err
	}
	defer unlock()
	a := reg.tgwAttachments[id]
	if a == nil {
		return fmt.Errorf("transit gateway attachment %s not found in %s", id, regionName)
	}
	a.state = "deleted"
	return nil
}

type tgwAttachmentXML struct {
	ID               string `xml:"transitGatewayAttachmentId"`
	TransitGatewayID string `xml:"transitGatewayId"`
	ResourceType     string `xml:"resourceType"`
	ResourceID       string `xml:"resourceId"`
	ResourceOwnerID  string `xml:"resourceOwnerId"`
	State            string `xml:"state"`
}

type describeTGWAttachmentsResponse struct {
	XMLName xml.Name `xml:"DescribeTransitGatewayAttachmentsResponse"`
	responseMeta
	Attachments []tgwAttachmentXML `xml:"transitGatewayAttachments>item"`
	NextToken   string             `xml:"nextToken,omitempty"`
}

func (s *Server) describeTGWAttachments(req *request) (any, *apiError) {
	ids := sortedKeys(req.region.tgwAttachments)
	max, aerr := maxResults(req.params, 5, 1000, s.opts.DefaultPageSize)
	if aerr != nil {
		return nil, aerr
	}
	pageIDs, next, aerr := page(ids, req.params.Get("NextToken"), max)
	if aerr != nil {
		return nil, aerr
	}
	resp := &describeTGWAttachmentsResponse{NextToken: next}
	for _, id := range pageIDs {
		a := req.region.tgwAttachments[id]
		resp.Attachments = append(resp.Attachments, tgwAttachmentXML{ID: a.id, TransitGatewayID: a.tgwID, ResourceType: "vpc",
			ResourceID: a.vpcID, ResourceOwnerID: s.opts.OwnerID, State: a.state})
	}
	return resp, nil
}
