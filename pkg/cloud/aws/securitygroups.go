package aws

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/rds"
	"github.com/aws/smithy-go"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// ManagedTag is put on every security group SyncSecurityGroups creates.
const ManagedTag = "antreaplus.io/managed"

const defaultGroupDescription = "Managed by AntreaPlus; changes are reverted"

// SyncSecurityGroups reads the managed groups of the VPC (by name prefix)
// and the groups of its network interfaces, plans the difference, and
// writes only that: one CreateSecurityGroup per new group, at most one
// AuthorizeSecurityGroupIngress/Egress and one Revoke... per changed group
// and direction, one ModifyNetworkInterfaceAttribute per interface whose
// groups change, one DeleteSecurityGroup per stale group. A sync of an
// unchanged VPC costs two describes and no write.
//
// Failures of the cloud (authentication, throttling after retries, network)
// stop the sync and are returned; a call the cloud refuses for one group or
// interface (a quota lower than configured, a dependency) is reported in
// the result's Unrealized, and the sync goes on.
func (p *Provider) SyncSecurityGroups(ctx context.Context, region string, spec provider.SecurityGroupSpec) (provider.SyncResult, error) {
	if err := checkRegion(region); err != nil {
		return provider.SyncResult{}, err
	}
	if spec.VPCID == "" || spec.Prefix == "" {
		return provider.SyncResult{}, errors.New("security group sync needs a VPC id and a managed prefix")
	}
	opt := func(o *ec2.Options) { o.Region = region }
	cur, err := p.readSecurityGroups(ctx, spec, opt)
	if err != nil {
		return provider.SyncResult{}, p.classify(err, "reading security groups", region)
	}
	plan := planSecurityGroups(spec, cur, limits{rulesPerGroup: p.opts.RulesPerGroup, groupsPerInterface: p.opts.GroupsPerInterface})
	r := &sgRun{p: p, ctx: ctx, opt: opt, region: region, spec: spec, ids: map[string]string{}}
	r.res.Unrealized = plan.unrealized
	for name, g := range cur.groups {
		r.ids[name] = g.id
	}
	for _, g := range plan.create {
		r.create(g)
	}
	for _, c := range plan.changes {
		r.authorize(c)
	}
	for _, c := range plan.changes {
		r.revoke(c)
	}
	for _, nic := range sortedNames(plan.interfaces) {
		r.setGroups(nic, plan.interfaces[nic])
	}
	for _, arn := range sortedNames(plan.services) {
		r.setServiceGroups(cur.services[arn], plan.services[arn])
	}
	for _, c := range plan.unlink {
		r.revoke(c)
	}
	for _, g := range plan.delete {
		r.delete(g)
	}
	return r.res, r.err
}

// sgRun runs a plan; after a cloud failure (err set) it does nothing more.
type sgRun struct {
	p      *Provider
	ctx    context.Context
	opt    func(*ec2.Options)
	region string
	spec   provider.SecurityGroupSpec
	ids    map[string]string // managed group name -> id
	res    provider.SyncResult
	err    error
}

// call runs one write for object and tells whether it succeeded.
func (r *sgRun) call(object, what string, fn func() error) bool {
	if r.err != nil {
		return false
	}
	r.res.Writes++
	err := r.p.classify(fn(), what, r.region)
	var api smithy.APIError
	switch {
	case err == nil:
		return true
	case errors.Is(err, provider.ErrAuthentication), errors.Is(err, provider.ErrThrottled), !errors.As(err, &api):
		r.err = err
	default:
		r.res.Unrealized = append(r.res.Unrealized, provider.Unrealized{Object: object, Code: unrealizedCode(api.ErrorCode()),
			Reason: api.ErrorCode() + ": " + api.ErrorMessage()})
	}
	return false
}

// unrealizedCode classifies a refusal of the cloud.
func unrealizedCode(code string) string {
	switch {
	case strings.Contains(code, "LimitExceeded"), strings.HasPrefix(code, "TooMany"), strings.Contains(code, "QuotaExceeded"):
		return provider.UnrealizedQuota
	case strings.Contains(code, "NotFound"):
		return provider.UnrealizedNotFound
	}
	return ""
}

func (r *sgRun) create(g provider.SecurityGroup) {
	desc := g.Description
	if desc == "" {
		desc = defaultGroupDescription
	}
	r.call(g.Name, "CreateSecurityGroup", func() error {
		out, err := r.p.client.CreateSecurityGroup(r.ctx, &ec2.CreateSecurityGroupInput{
			GroupName: aws.String(g.Name), Description: aws.String(desc), VpcId: aws.String(r.spec.VPCID),
			TagSpecifications: []types.TagSpecification{{
				ResourceType: types.ResourceTypeSecurityGroup,
				Tags:         []types.Tag{{Key: aws.String(ManagedTag), Value: aws.String("true")}},
			}},
		}, r.opt)
		if err == nil {
			r.ids[g.Name] = aws.ToString(out.GroupId)
			r.res.Created = append(r.res.Created, g.Name)
		}
		return err
	})
}

func (r *sgRun) authorize(c ruleChange) {
	id, perms, ok := r.permissions(c.group, c.add)
	if !ok || len(perms) == 0 {
		return
	}
	done := false
	if c.egress {
		done = r.call(c.group, "AuthorizeSecurityGroupEgress", func() error {
			_, err := r.p.client.AuthorizeSecurityGroupEgress(r.ctx, &ec2.AuthorizeSecurityGroupEgressInput{GroupId: &id, IpPermissions: perms}, r.opt)
			return err
		})
	} else {
		done = r.call(c.group, "AuthorizeSecurityGroupIngress", func() error {
			_, err := r.p.client.AuthorizeSecurityGroupIngress(r.ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: &id, IpPermissions: perms}, r.opt)
			return err
		})
	}
	if done {
		r.res.RulesAdded += len(c.add)
	}
}

func (r *sgRun) revoke(c ruleChange) {
	id, perms, ok := r.permissions(c.group, c.del)
	if !ok || len(perms) == 0 {
		return
	}
	done := false
	if c.egress {
		done = r.call(c.group, "RevokeSecurityGroupEgress", func() error {
			_, err := r.p.client.RevokeSecurityGroupEgress(r.ctx, &ec2.RevokeSecurityGroupEgressInput{GroupId: &id, IpPermissions: perms}, r.opt)
			return err
		})
	} else {
		done = r.call(c.group, "RevokeSecurityGroupIngress", func() error {
			_, err := r.p.client.RevokeSecurityGroupIngress(r.ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: &id, IpPermissions: perms}, r.opt)
			return err
		})
	}
	if done {
		r.res.RulesRemoved += len(c.del)
	}
}

func (r *sgRun) setGroups(nic string, groups []string) {
	ids := make([]string, 0, len(groups))
	for _, g := range groups {
		id, ok := r.resolve(g)
		if !ok {
			r.report(nic, "group %s was not created", strings.TrimPrefix(g, "sg:"))
			return
		}
		ids = append(ids, id)
	}
	if r.call(nic, "ModifyNetworkInterfaceAttribute", func() error {
		_, err := r.p.client.ModifyNetworkInterfaceAttribute(r.ctx, &ec2.ModifyNetworkInterfaceAttributeInput{NetworkInterfaceId: aws.String(nic), Groups: ids}, r.opt)
		return err
	}) {
		r.res.InterfacesChanged++
	}
}

// setServiceGroups sets the groups of a DB instance (ModifyDBInstance), a
// DB cluster (ModifyDBCluster) or a load balancer (SetSecurityGroups).
func (r *sgRun) setServiceGroups(svc *serviceState, groups []string) {
	ids := make([]string, 0, len(groups))
	for _, g := range groups {
		id, ok := r.resolve(g)
		if !ok {
			r.report(svc.arn, "group %s was not created", strings.TrimPrefix(g, "sg:"))
			return
		}
		ids = append(ids, id)
	}
	rdsOpt := func(o *rds.Options) { o.Region = r.region }
	var op string
	var fn func() error
	switch svc.kind {
	case svcDBInstance:
		op, fn = "ModifyDBInstance", func() error {
			_, err := r.p.rds.ModifyDBInstance(r.ctx, &rds.ModifyDBInstanceInput{
				DBInstanceIdentifier: aws.String(svc.name), VpcSecurityGroupIds: ids, ApplyImmediately: aws.Bool(true)}, rdsOpt)
			return err
		}
	case svcDBCluster:
		op, fn = "ModifyDBCluster", func() error {
			_, err := r.p.rds.ModifyDBCluster(r.ctx, &rds.ModifyDBClusterInput{
				DBClusterIdentifier: aws.String(svc.name), VpcSecurityGroupIds: ids, ApplyImmediately: aws.Bool(true)}, rdsOpt)
			return err
		}
	case svcLoadBalancer:
		op, fn = "SetSecurityGroups", func() error {
			_, err := r.p.elb.SetSecurityGroups(r.ctx, &elb.SetSecurityGroupsInput{LoadBalancerArn: aws.String(svc.arn), SecurityGroups: ids},
				func(o *elb.Options) { o.Region = r.region })
			return err
		}
	default:
		r.report(svc.arn, "not a kind of service whose security groups can be set")
		return
	}
	if r.call(svc.arn, op, fn) {
		r.res.ServicesChanged++
	}
}

func (r *sgRun) delete(g *groupState) {
	if r.call(g.name, "DeleteSecurityGroup", func() error {
		_, err := r.p.client.DeleteSecurityGroup(r.ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(g.id)}, r.opt)
		return err
	}) {
		r.res.Deleted = append(r.res.Deleted, g.name)
	}
}

func (r *sgRun) report(object, format string, args ...any) {
	r.res.Unrealized = append(r.res.Unrealized, provider.Unrealized{Object: object, Reason: fmt.Sprintf(format, args...)})
}

// resolve turns "sg:<name>" or "id:<id>" into a group id.
func (r *sgRun) resolve(ref string) (string, bool) {
	if id, ok := strings.CutPrefix(ref, "id:"); ok {
		return id, true
	}
	id, ok := r.ids[strings.TrimPrefix(ref, "sg:")]
	return id, ok
}

// permissions turns rules of a group into IpPermissions, one per protocol
// and port range with every peer of it.
func (r *sgRun) permissions(group string, rules []rule) (string, []types.IpPermission, bool) {
	id, ok := r.ids[group]
	if !ok {
		if len(rules) > 0 {
			r.report(group, "group was not created; %d rules not applied", len(rules))
		}
		return "", nil, false
	}
	var perms []types.IpPermission
	index := map[[3]any]int{}
	for _, rl := range rules {
		k := [3]any{rl.protocol, rl.from, rl.to}
		i, seen := index[k]
		if !seen {
			perm := types.IpPermission{IpProtocol: aws.String(rl.protocol)}
			if rl.protocol != "-1" {
				perm.FromPort, perm.ToPort = aws.Int32(rl.from), aws.Int32(rl.to)
			}
			i = len(perms)
			index[k] = i
			perms = append(perms, perm)
		}
		perm := &perms[i]
		switch {
		case strings.HasPrefix(rl.peer, "sg:") || strings.HasPrefix(rl.peer, "id:"):
			peerID, ok := r.resolve(rl.peer)
			if !ok {
				r.report(group, "rule %s refers to a group that was not created", rl)
				continue
			}
			perm.UserIdGroupPairs = append(perm.UserIdGroupPairs, types.UserIdGroupPair{GroupId: aws.String(peerID)})
		case strings.Contains(rl.peer, ":"):
			perm.Ipv6Ranges = append(perm.Ipv6Ranges, types.Ipv6Range{CidrIpv6: aws.String(rl.peer)})
		default:
			perm.IpRanges = append(perm.IpRanges, types.IpRange{CidrIp: aws.String(rl.peer)})
		}
	}
	return id, perms, true
}
