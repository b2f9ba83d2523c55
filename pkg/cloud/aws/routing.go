package aws

import (
	"context"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// routing is what a poll reads of how a region's traffic leaves its VPCs:
// NAT gateways, route tables, peering connections and transit gateway
// attachments.
type routing struct {
	natGateways []types.NatGateway
	routeTables []types.RouteTable
	peerings    []types.VpcPeeringConnection
	attachments []types.TransitGatewayAttachment
}

func (p *Provider) describeNatGateways(ctx context.Context, opt func(*ec2.Options)) ([]types.NatGateway, error) {
	var out []types.NatGateway
	pages := ec2.NewDescribeNatGatewaysPaginator(p.client, &ec2.DescribeNatGatewaysInput{MaxResults: aws.Int32(p.opts.PageSize)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, page.NatGateways...)
	}
	return out, nil
}

func (p *Provider) describeRouteTables(ctx context.Context, opt func(*ec2.Options)) ([]types.RouteTable, error) {
	var out []types.RouteTable
	pages := ec2.NewDescribeRouteTablesPaginator(p.client, &ec2.DescribeRouteTablesInput{MaxResults: aws.Int32(p.opts.PageSize)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, page.RouteTables...)
	}
	return out, nil
}

func (p *Provider) describePeerings(ctx context.Context, opt func(*ec2.Options)) ([]types.VpcPeeringConnection, error) {
	var out []types.VpcPeeringConnection
	pages := ec2.NewDescribeVpcPeeringConnectionsPaginator(p.client, &ec2.DescribeVpcPeeringConnectionsInput{MaxResults: aws.Int32(p.opts.PageSize)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, page.VpcPeeringConnections...)
	}
	return out, nil
}

func (p *Provider) describeTGWAttachments(ctx context.Context, opt func(*ec2.Options)) ([]types.TransitGatewayAttachment, error) {
	var out []types.TransitGatewayAttachment
	pages := ec2.NewDescribeTransitGatewayAttachmentsPaginator(p.client, &ec2.DescribeTransitGatewayAttachmentsInput{MaxResults: aws.Int32(p.opts.PageSize)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, page.TransitGatewayAttachments...)
	}
	return out, nil
}

// applyRouting fills in the snapshot what routing says: each interface's
// egress addresses (the public IPs of the NAT gateway its subnet's route
// table sends 0.0.0.0/0 to, else its own public IPs when the route goes to
// an internet gateway, else none) and each VPC's active peerings.
func applyRouting(s *provider.Snapshot, r routing) {
	nat := map[string][]string{}
	for _, g := range r.natGateways {
		if g.State != types.NatGatewayStateAvailable {
			continue
		}
		for _, a := range g.NatGatewayAddresses {
			if ip := aws.ToString(a.PublicIp); ip != "" {
				nat[aws.ToString(g.NatGatewayId)] = append(nat[aws.ToString(g.NatGatewayId)], ip)
			}
		}
	}
	bySubnet, mainOf := map[string]*types.RouteTable{}, map[string]*types.RouteTable{}
	for i := range r.routeTables {
		rt := &r.routeTables[i]
		for _, a := range rt.Associations {
			switch {
			case aws.ToBool(a.Main):
				mainOf[aws.ToString(rt.VpcId)] = rt
			case aws.ToString(a.SubnetId) != "":
				bySubnet[aws.ToString(a.SubnetId)] = rt
			}
		}
	}
	for i := range s.VMs {
		for j := range s.VMs[i].NICs {
			n := &s.VMs[i].NICs[j]
			rt := bySubnet[n.SubnetID]
			if rt == nil {
				rt = mainOf[n.VPCID]
			}
			n.EgressIPs, n.NATGatewayID = nil, ""
			switch target := defaultRoute(rt); {
			case strings.HasPrefix(target, "nat-"):
				n.NATGatewayID, n.EgressIPs = target, slices.Clone(nat[target])
			case strings.HasPrefix(target, "igw-"):
				n.EgressIPs = slices.Clone(n.PublicIPs)
			}
		}
	}
	applyPeerings(s, r.peerings)
	applyTransitGateways(s, r.attachments)
}

// applyTransitGateways connects the VPCs attached to one transit gateway
// (available VPC attachments) with each other, as the default route table
// association and propagation do. A peer VPC not in the snapshot (another
// region or account) is left out: its ranges are not known here.
func applyTransitGateways(s *provider.Snapshot, attachments []types.TransitGatewayAttachment) {
	byTGW := map[string][]types.TransitGatewayAttachment{}
	for _, a := range attachments {
		if a.State == types.TransitGatewayAttachmentStateAvailable && a.ResourceType == types.TransitGatewayAttachmentResourceTypeVpc {
			byTGW[aws.ToString(a.TransitGatewayId)] = append(byTGW[aws.ToString(a.TransitGatewayId)], a)
		}
	}
	index := map[string]int{}
	for i := range s.VPCs {
		index[s.VPCs[i].ID] = i
	}
	for _, list := range byTGW {
		for _, a := range list {
			i, ok := index[aws.ToString(a.ResourceId)]
			if !ok {
				continue
			}
			for _, b := range list {
				j, ok := index[aws.ToString(b.ResourceId)]
				if !ok || i == j {
					continue
				}
				s.VPCs[i].Peerings = append(s.VPCs[i].Peerings, provider.Peering{ID: aws.ToString(a.TransitGatewayAttachmentId), Via: "TransitGateway",
					PeerVPCID: s.VPCs[j].ID, PeerCIDRs: slices.Clone(s.VPCs[j].CIDRs)})
			}
		}
	}
}

// defaultRoute is the target of a route table's active 0.0.0.0/0 route:
// a NAT gateway's or an internet gateway's id, "" when there is none.
func defaultRoute(rt *types.RouteTable) string {
	if rt == nil {
		return ""
	}
	for _, route := range rt.Routes {
		if aws.ToString(route.DestinationCidrBlock) != "0.0.0.0/0" || route.State == types.RouteStateBlackhole {
			continue
		}
		if id := aws.ToString(route.NatGatewayId); id != "" {
			return id
		}
		return aws.ToString(route.GatewayId)
	}
	return ""
}

// applyPeerings adds each active peering connection to both of its VPCs
// that the snapshot holds.
func applyPeerings(s *provider.Snapshot, peerings []types.VpcPeeringConnection) {
	index := map[string]int{}
	for i := range s.VPCs {
		index[s.VPCs[i].ID] = i
		s.VPCs[i].Peerings = nil
	}
	add := func(self, peer *types.VpcPeeringConnectionVpcInfo, id string) {
		i, ok := index[aws.ToString(self.VpcId)]
		if !ok {
			return
		}
		var cidrs []string
		for _, c := range peer.CidrBlockSet {
			cidrs = append(cidrs, aws.ToString(c.CidrBlock))
		}
		if len(cidrs) == 0 && aws.ToString(peer.CidrBlock) != "" {
			cidrs = []string{aws.ToString(peer.CidrBlock)}
		}
		s.VPCs[i].Peerings = append(s.VPCs[i].Peerings, provider.Peering{ID: id, Via: "VPCPeering", PeerVPCID: aws.ToString(peer.VpcId), PeerCIDRs: cidrs})
	}
	for _, p := range peerings {
		if p.Status == nil || p.Status.Code != types.VpcPeeringConnectionStateReasonCodeActive || p.RequesterVpcInfo == nil || p.AccepterVpcInfo == nil {
			continue
		}
		id := aws.ToString(p.VpcPeeringConnectionId)
		add(p.RequesterVpcInfo, p.AccepterVpcInfo, id)
		add(p.AccepterVpcInfo, p.RequesterVpcInfo, id)
	}
}
