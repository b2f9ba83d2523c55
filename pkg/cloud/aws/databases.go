package aws

import (
	"context"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/rds"
	rdstypes "github.com/aws/aws-sdk-go-v2/service/rds/types"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// lookupTimeout bounds the resolution of one DB instance's endpoint.
const lookupTimeout = 3 * time.Second

func (p *Provider) describeDBInstances(ctx context.Context, region string) ([]rdstypes.DBInstance, error) {
	var out []rdstypes.DBInstance
	pages := rds.NewDescribeDBInstancesPaginator(p.rds, &rds.DescribeDBInstancesInput{MaxRecords: aws.Int32(min(max(p.opts.PageSize, 20), 100))})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx, func(o *rds.Options) { o.Region = region })
		if err != nil {
			return nil, err
		}
		out = append(out, page.DBInstances...)
	}
	return out, nil
}

func (p *Provider) describeDBClusters(ctx context.Context, region string) ([]rdstypes.DBCluster, error) {
	var out []rdstypes.DBCluster
	pages := rds.NewDescribeDBClustersPaginator(p.rds, &rds.DescribeDBClustersInput{MaxRecords: aws.Int32(min(max(p.opts.PageSize, 20), 100))})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx, func(o *rds.Options) { o.Region = region })
		if err != nil {
			return nil, err
		}
		out = append(out, page.DBClusters...)
	}
	return out, nil
}

// clusterServices converts DB clusters (Aurora). A cluster names no VPC:
// it is its member instances' (dbs, in the order of instances, their
// services). Its addresses are its members', its port the cluster's; the
// members stay services of their own, whose groups are the cluster's.
func clusterServices(clusters []rdstypes.DBCluster, dbs []rdstypes.DBInstance, instances []provider.Service) []provider.Service {
	byID := make(map[string]int, len(dbs))
	for i, db := range dbs {
		byID[aws.ToString(db.DBInstanceIdentifier)] = i
	}
	out := make([]provider.Service, 0, len(clusters))
	for _, c := range clusters {
		svc := provider.Service{
			ID: aws.ToString(c.DBClusterArn), Name: aws.ToString(c.DBClusterIdentifier), Kind: provider.AWSRDS,
			DNSName: aws.ToString(c.Endpoint),
		}
		if port := aws.ToInt32(c.Port); port > 0 {
			svc.Ports = []provider.Port{{Name: aws.ToString(c.Engine), Protocol: "TCP", Port: port}}
		}
		for _, m := range c.DBClusterMembers {
			i, ok := byID[aws.ToString(m.DBInstanceIdentifier)]
			if !ok {
				continue
			}
			if svc.VPCID == "" {
				svc.VPCID = instances[i].VPCID
			}
			svc.PrivateIPs = append(svc.PrivateIPs, instances[i].PrivateIPs...)
			svc.PublicIPs = append(svc.PublicIPs, instances[i].PublicIPs...)
		}
		slices.Sort(svc.PrivateIPs)
		slices.Sort(svc.PublicIPs)
		svc.PrivateIPs, svc.PublicIPs = slices.Compact(svc.PrivateIPs), slices.Compact(svc.PublicIPs)
		for _, g := range c.VpcSecurityGroups {
			svc.SecurityGroupIDs = append(svc.SecurityGroupIDs, aws.ToString(g.VpcSecurityGroupId))
		}
		slices.Sort(svc.SecurityGroupIDs)
		if len(c.TagList) > 0 {
			svc.Tags = make(map[string]string, len(c.TagList))
			for _, t := range c.TagList {
				svc.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
			}
		}
		out = append(out, svc)
	}
	return out
}

// dbServices converts DB instances. RDS gives an endpoint name, not an
// address: each name is resolved (concurrently, each within
// lookupTimeout), and its addresses inside the VPC, or private ones, become
// the service's private IPs, the others its public IPs. A name that does
// not resolve leaves the service without addresses; it is not an error.
func (p *Provider) dbServices(ctx context.Context, dbs []rdstypes.DBInstance, vpcs []provider.VPC) []provider.Service {
	out := make([]provider.Service, len(dbs))
	var (
		wg    sync.WaitGroup
		slots = make(chan struct{}, 2*describeConcurrency)
	)
	for i, db := range dbs {
		svc := provider.Service{
			ID: aws.ToString(db.DBInstanceArn), Name: aws.ToString(db.DBInstanceIdentifier), Kind: provider.AWSRDS,
		}
		if g := db.DBSubnetGroup; g != nil {
			svc.VPCID = aws.ToString(g.VpcId)
		}
		if e := db.Endpoint; e != nil {
			svc.DNSName = aws.ToString(e.Address)
			if port := aws.ToInt32(e.Port); port > 0 {
				svc.Ports = []provider.Port{{Name: aws.ToString(db.Engine), Protocol: "TCP", Port: port}}
			}
		}
		for _, g := range db.VpcSecurityGroups {
			svc.SecurityGroupIDs = append(svc.SecurityGroupIDs, aws.ToString(g.VpcSecurityGroupId))
		}
		slices.Sort(svc.SecurityGroupIDs)
		if len(db.TagList) > 0 {
			svc.Tags = make(map[string]string, len(db.TagList))
			for _, t := range db.TagList {
				svc.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
			}
		}
		out[i] = svc
		if svc.DNSName == "" {
			continue
		}
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			lctx, cancel := context.WithTimeout(ctx, lookupTimeout)
			defer cancel()
			addrs, err := p.opts.Resolver.LookupHost(lctx, out[i].DNSName)
			if err == nil {
				out[i].PrivateIPs, out[i].PublicIPs = splitAddresses(addrs, vpcCIDRs(vpcs, out[i].VPCID))
			}
		})
	}
	wg.Wait()
	return out
}

func vpcCIDRs(vpcs []provider.VPC, id string) []netip.Prefix {
	var out []netip.Prefix
	for _, v := range vpcs {
		if v.ID != id {
			continue
		}
		for _, c := range v.CIDRs {
			if p, err := netip.ParsePrefix(c); err == nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// splitAddresses sorts addresses into those inside cidrs or private, and
// the others; what is not an address is dropped.
func splitAddresses(addrs []string, cidrs []netip.Prefix) (private, public []string) {
	for _, a := range addrs {
		ip, err := netip.ParseAddr(a)
		if err != nil {
			continue
		}
		ip = ip.Unmap()
		if ip.IsPrivate() || slices.ContainsFunc(cidrs, func(p netip.Prefix) bool { return p.Contains(ip) }) {
			private = append(private, ip.String())
		} else {
			public = append(public, ip.String())
		}
	}
	slices.Sort(private)
	slices.Sort(public)
	return slices.Compact(private), slices.Compact(public)
}
