package aws

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// readSecurityGroups reads the managed groups of the VPC and the groups of
// each of its network interfaces.
func (p *Provider) readSecurityGroups(ctx context.Context, spec provider.SecurityGroupSpec, opt func(*ec2.Options)) (cloudState, error) {
	cur := cloudState{groups: map[string]*groupState{}, nics: map[string][]string{}}
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
			cur.nics[aws.ToString(n.NetworkInterfaceId)] = ids
		}
	}
	return cur, nil
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
