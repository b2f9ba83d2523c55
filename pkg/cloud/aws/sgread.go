package aws

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	rdstypes "github.com/aws/aws-sdk-go-v2/service/rds/types"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// readSecurityGroups reads the managed groups of the VPC and the groups of
// each of its network interfaces.
func (p *Provider) readSecurityGroups(ctx context.Context, spec provider.SecurityGroupSpec, opt func(*ec2.Options)) (cloudState, error) {
	cur := cloudState{groups: map[string]*groupState{}, nics: map[string][]string{}, services: map[string]*serviceState{}}
	vpc := types.Filter{Name: aws.String("vpc-id"), Values: []string{spec.VPCID}}
	var groups []types.SecurityGroup
	sgPages := ec2.NewDescribeSecurityGroupsPaginator(p.client, &ec2.DescribeSecurityGroupsInput{
		MaxResults: aws.Int32(p.opts.PageSize),
		Filters:    []types.Filter{vpc, {Name: aws.String("group-name"), Values: []string{escapeFilter(spec.Prefix) + "*"}}},
	})
	for sgPages.HasMorePages() {
		page, err := sgPages.NextPage(ctx, opt)
		if err != nil {
			return cur, err
		}
		groups = append(groups, page.SecurityGroups...)
	}
	managed := map[string]string{} // id -> name
	need := map[serviceKind]bool{} // kinds of service to read
	for _, g := range groups {
		if name := aws.ToString(g.GroupName); strings.HasPrefix(name, spec.Prefix) {
			managed[aws.ToString(g.GroupId)] = name
		}
	}
	for _, g := range groups {
		name, ok := managed[aws.ToString(g.GroupId)]
		if !ok {
			continue
		}
		cur.groups[name] = &groupState{
			id: aws.ToString(g.GroupId), name: name,
			ingress: rulesOf(g.IpPermissions, managed), egress: rulesOf(g.IpPermissionsEgress, managed),
		}
	}
	nicPages := ec2.NewDescribeNetworkInterfacesPaginator(p.client, &ec2.DescribeNetworkInterfacesInput{
		MaxResults: aws.Int32(p.opts.PageSize), Filters: []types.Filter{vpc},
	})
	for nicPages.HasMorePages() {
		page, err := nicPages.NextPage(ctx, opt)
		if err != nil {
			return cur, err
		}
		for _, n := range page.NetworkInterfaces {
			ids := make([]string, 0, len(n.Groups))
			for _, g := range n.Groups {
				ids = append(ids, aws.ToString(g.GroupId))
			}
			if aws.ToBool(n.RequesterManaged) {
				// A database's or load balancer's: its groups are the
				// service's, set through the service's API.
				for _, id := range ids {
					if _, ok := managed[id]; ok {
						need[serviceKindOfInterface(n)] = true
					}
				}
				continue
			}
			cur.nics[aws.ToString(n.NetworkInterfaceId)] = ids
		}
	}
	for arn := range spec.Services {
		need[serviceKindOf(arn)] = true
	}
	if need[0] {
		need[svcDBInstance], need[svcLoadBalancer] = true, true
	}
	if need[svcDBInstance] || need[svcDBCluster] {
		if err := p.readDatabases(ctx, spec.VPCID, opt, cur.services); err != nil {
			return cur, err
		}
	}
	if need[svcLoadBalancer] {
		if err := p.readLoadBalancers(ctx, spec.VPCID, opt, cur.services); err != nil {
			return cur, err
		}
	}
	return cur, nil
}

// serviceKindOfInterface tells which service created a requester-managed
// interface: 0 when it is none this provider sets groups of.
func serviceKindOfInterface(n types.NetworkInterface) serviceKind {
	switch {
	case aws.ToString(n.RequesterId) == "amazon-rds" || aws.ToString(n.Description) == "RDSNetworkInterface":
		return svcDBInstance
	case aws.ToString(n.RequesterId) == "amazon-elb" || strings.HasPrefix(aws.ToString(n.Description), "ELB "):
		return svcLoadBalancer
	}
	return 0
}

// readDatabases reads the DB instances and clusters of the VPC and their
// groups. RDS filters by neither: the region's are read, the VPC's kept; a
// cluster is in its members' VPC.
func (p *Provider) readDatabases(ctx context.Context, vpcID string, opt func(*ec2.Options), out map[string]*serviceState) error {
	region := regionOf(opt)
	dbs, err := p.describeDBInstances(ctx, region)
	if err != nil {
		return fmt.Errorf("DescribeDBInstances: %w", err)
	}
	clusters, err := p.describeDBClusters(ctx, region)
	if err != nil {
		return fmt.Errorf("DescribeDBClusters: %w", err)
	}
	inVPC := map[string]bool{}
	for _, db := range dbs {
		if db.DBSubnetGroup == nil || aws.ToString(db.DBSubnetGroup.VpcId) != vpcID {
			continue
		}
		id := aws.ToString(db.DBInstanceIdentifier)
		inVPC[id] = true
		out[aws.ToString(db.DBInstanceArn)] = &serviceState{
			arn: aws.ToString(db.DBInstanceArn), kind: svcDBInstance, name: id,
			groups: dbGroups(db.VpcSecurityGroups), cluster: aws.ToString(db.DBClusterIdentifier),
		}
	}
	for _, c := range clusters {
		if !slices.ContainsFunc(c.DBClusterMembers, func(m rdstypes.DBClusterMember) bool { return inVPC[aws.ToString(m.DBInstanceIdentifier)] }) {
			continue
		}
		out[aws.ToString(c.DBClusterArn)] = &serviceState{
			arn: aws.ToString(c.DBClusterArn), kind: svcDBCluster, name: aws.ToString(c.DBClusterIdentifier),
			groups: dbGroups(c.VpcSecurityGroups),
		}
	}
	return nil
}

// dbGroups are the groups of a DB instance or cluster, but those being
// removed.
func dbGroups(ms []rdstypes.VpcSecurityGroupMembership) []string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		if !strings.EqualFold(aws.ToString(m.Status), "removing") {
			out = append(out, aws.ToString(m.VpcSecurityGroupId))
		}
	}
	return out
}

// readLoadBalancers reads the load balancers of the VPC and their groups.
func (p *Provider) readLoadBalancers(ctx context.Context, vpcID string, opt func(*ec2.Options), out map[string]*serviceState) error {
	region := regionOf(opt)
	pages := elb.NewDescribeLoadBalancersPaginator(p.elb, &elb.DescribeLoadBalancersInput{PageSize: aws.Int32(min(p.opts.PageSize, 400))})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx, func(o *elb.Options) { o.Region = region })
		if err != nil {
			return fmt.Errorf("DescribeLoadBalancers: %w", err)
		}
		for _, lb := range page.LoadBalancers {
			if aws.ToString(lb.VpcId) != vpcID {
				continue
			}
			s := &serviceState{arn: aws.ToString(lb.LoadBalancerArn), kind: svcLoadBalancer, name: aws.ToString(lb.LoadBalancerName), groups: lb.SecurityGroups}
			switch {
			case lb.Type == elbtypes.LoadBalancerTypeEnumGateway:
				s.fixed = "a Gateway Load Balancer has no security groups: enforce on its targets instead"
			case lb.Type == elbtypes.LoadBalancerTypeEnumNetwork && len(lb.SecurityGroups) == 0:
				s.fixed = "a Network Load Balancer created without security groups cannot get any: recreate it with a security group (its own, which AntreaPlus keeps) to enforce policies on it"
			}
			out[s.arn] = s
		}
	}
	return nil
}

// regionOf is the region an EC2 option sets.
func regionOf(opt func(*ec2.Options)) string {
	var o ec2.Options
	opt(&o)
	return o.Region
}

// rulesOf flattens IpPermissions to one rule per peer.
func rulesOf(perms []types.IpPermission, managed map[string]string) []rule {
	var out []rule
	for _, perm := range perms {
		base := rule{protocol: strings.ToLower(aws.ToString(perm.IpProtocol))}
		if base.protocol != "-1" {
			base.from, base.to = aws.ToInt32(perm.FromPort), aws.ToInt32(perm.ToPort)
		}
		for _, r := range perm.IpRanges {
			out = append(out, withPeer(base, aws.ToString(r.CidrIp)))
		}
		for _, r := range perm.Ipv6Ranges {
			out = append(out, withPeer(base, aws.ToString(r.CidrIpv6)))
		}
		for _, g := range perm.UserIdGroupPairs {
			id := aws.ToString(g.GroupId)
			if name, ok := managed[id]; ok {
				out = append(out, withPeer(base, "sg:"+name))
			} else {
				out = append(out, withPeer(base, "id:"+id))
			}
		}
		// Prefix-list peers are not managed by AntreaPlus; such a rule is
		// left out here and so never revoked.
	}
	return out
}

func withPeer(r rule, peer string) rule {
	r.peer = peer
	return r
}

// escapeFilter escapes EC2 filter wildcards in a literal.
func escapeFilter(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`).Replace(s)
}
