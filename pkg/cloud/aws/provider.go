package aws

import (
	"context"
	"errors"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/rds"
	rdstypes "github.com/aws/aws-sdk-go-v2/service/rds/types"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// Provider reads one AWS account's inventory through the EC2, ELBv2 and
// RDS APIs.
type Provider struct {
	opts   Options
	creds  *aws.CredentialsCache
	client *ec2.Client
	elb    *elasticloadbalancingv2.Client
	rds    *rds.Client
}

var _ provider.Provider = (*Provider)(nil)

// New returns a provider for the account the options' credentials belong
// to. It makes no call; the first Inventory tells whether the credentials
// (and the role they assume) work.
func New(opts Options) (*Provider, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	retryer := func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = opts.MaxAttempts
			o.MaxBackoff = opts.MaxBackoff
			// The standard retryer's client-side retry quota would fail
			// calls on its own after a burst of throttling; attempts are
			// bounded by MaxAttempts and the next poll retries anyway.
			o.RateLimiter = ratelimit.None
		})
	}
	p := &Provider{opts: opts, creds: credentialsOf(opts, retryer)}
	var endpoint *string
	if opts.Endpoint != "" {
		endpoint = aws.String(opts.Endpoint)
	}
	// Every call sets its own region; the clients' region is never used.
	p.client = ec2.New(ec2.Options{Region: "us-east-1", Credentials: p.creds, HTTPClient: opts.HTTPClient, Retryer: retryer(), BaseEndpoint: endpoint})
	p.elb = elasticloadbalancingv2.New(elasticloadbalancingv2.Options{Region: "us-east-1", Credentials: p.creds, HTTPClient: opts.HTTPClient, Retryer: retryer(), BaseEndpoint: endpoint})
	p.rds = rds.New(rds.Options{Region: "us-east-1", Credentials: p.creds, HTTPClient: opts.HTTPClient, Retryer: retryer(), BaseEndpoint: endpoint})
	return p, nil
}

// liveStates are the instance states worth importing; terminated instances
// stay visible in EC2 for a while but are gone for every other purpose.
var liveStates = []string{"pending", "running", "shutting-down", "stopping", "stopped"}

// Inventory reads the region's VPCs, instances, network interfaces, NAT
// gateways, route tables, VPC peering connections and transit gateway
// attachments (the VMs and their networks), and the load balancers and the
// DB instances and clusters (the services), each through every page,
// concurrently.
//
// Every read runs to its end: one failing does not cancel the others, so
// the outcome does not depend on which service answered first. A failed
// read of the VMs or their networks fails the poll, with the most telling
// error of all the reads (a refusal of the credentials from any service
// first, then an unavailable region, throttling, anything else), and among
// errors of one class the first read's in a fixed order. A failed read of
// a kind of service alone leaves that kind out of the snapshot, reported
// in Snapshot.Failed: the VMs are still followed.
func (p *Provider) Inventory(ctx context.Context, region string) (*provider.Snapshot, error) {
	if err := checkRegion(region); err != nil {
		return nil, err
	}
	inRegion := func(o *ec2.Options) { o.Region = region }

	var (
		wg        sync.WaitGroup
		errs      [readCount]error
		routes    routing
		vpcs      []types.Vpc
		instances []types.Instance
		enis      []types.NetworkInterface
		lbs       []loadBalancer
		dbs       []rdstypes.DBInstance
		clusters  []rdstypes.DBCluster
	)
	run := func(i int, what string, fn func() error) {
		wg.Go(func() { errs[i] = p.classify(fn(), what, region) })
	}
	run(readVPCs, "DescribeVpcs", func() (err error) {
		vpcs, err = p.describeVpcs(ctx, inRegion)
		return err
	})
	run(readInstances, "DescribeInstances", func() (err error) {
		instances, err = p.describeInstances(ctx, inRegion)
		return err
	})
	run(readInterfaces, "DescribeNetworkInterfaces", func() (err error) {
		enis, err = p.describeNetworkInterfaces(ctx, inRegion)
		return err
	})
	run(readNATGateways, "DescribeNatGateways", func() (err error) {
		routes.natGateways, err = p.describeNatGateways(ctx, inRegion)
		return err
	})
	run(readRouteTables, "DescribeRouteTables", func() (err error) {
		routes.routeTables, err = p.describeRouteTables(ctx, inRegion)
		return err
	})
	run(readPeerings, "DescribeVpcPeeringConnections", func() (err error) {
		routes.peerings, err = p.describePeerings(ctx, inRegion)
		return err
	})
	run(readTGWAttachments, "DescribeTransitGatewayAttachments", func() (err error) {
		routes.attachments, err = p.describeTGWAttachments(ctx, inRegion)
		return err
	})
	run(readLoadBalancers, "DescribeLoadBalancers", func() (err error) {
		lbs, err = p.describeLoadBalancers(ctx, region)
		return err
	})
	run(readDBInstances, "DescribeDBInstances", func() (err error) {
		dbs, err = p.describeDBInstances(ctx, region)
		return err
	})
	run(readDBClusters, "DescribeDBClusters", func() (err error) {
		clusters, err = p.describeDBClusters(ctx, region)
		return err
	})
	wg.Wait()
	if err := provider.MostTelling(errs[:readLoadBalancers]); err != nil {
		// The services' refusal of the credentials is as telling as EC2's.
		return nil, provider.MostTelling(append([]error{err}, errs[readLoadBalancers:]...))
	}
	snap := snapshot(region, vpcs, instances, enis)
	applyRouting(snap, routes)
	if err := errs[readLoadBalancers]; err != nil {
		snap.Failed = append(snap.Failed, provider.KindFailure{Kinds: []provider.ServiceKind{provider.AWSLoadBalancer}, Err: err})
	} else {
		snap.Services = append(snap.Services, loadBalancerServices(lbs, enis)...)
	}
	if err := provider.MostTelling(errs[readDBInstances:]); err != nil {
		snap.Failed = append(snap.Failed, provider.KindFailure{Kinds: []provider.ServiceKind{provider.AWSRDS}, Err: err})
	} else {
		instances := p.dbServices(ctx, dbs, snap.VPCs)
		snap.Services = append(snap.Services, instances...)
		snap.Services = append(snap.Services, clusterServices(clusters, dbs, instances)...)
	}
	snap.Sort()
	return snap, nil
}

// The reads of a poll, in the order their errors are preferred within a
// class: the VMs and their networks, then the kinds of service.
const (
	readVPCs = iota
	readInstances
	readInterfaces
	readNATGateways
	readRouteTables
	readPeerings
	readTGWAttachments
	readLoadBalancers
	readDBInstances
	readDBClusters
	readCount
)

// firstError prefers a cause over the cancellations it caused.
func firstError(errs []error) error {
	var first error
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}

func (p *Provider) describeVpcs(ctx context.Context, opt func(*ec2.Options)) ([]types.Vpc, error) {
	var out []types.Vpc
	pages := ec2.NewDescribeVpcsPaginator(p.client, &ec2.DescribeVpcsInput{MaxResults: aws.Int32(p.opts.PageSize)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, page.Vpcs...)
	}
	return out, nil
}

func (p *Provider) describeInstances(ctx context.Context, opt func(*ec2.Options)) ([]types.Instance, error) {
	var out []types.Instance
	pages := ec2.NewDescribeInstancesPaginator(p.client, &ec2.DescribeInstancesInput{
		MaxResults: aws.Int32(p.opts.PageSize),
		Filters:    []types.Filter{{Name: aws.String("instance-state-name"), Values: liveStates}},
	})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx, opt)
		if err != nil {
			return nil, err
		}
		for _, r := range page.Reservations {
			out = append(out, r.Instances...)
		}
	}
	return out, nil
}

func (p *Provider) describeNetworkInterfaces(ctx context.Context, opt func(*ec2.Options)) ([]types.NetworkInterface, error) {
	var out []types.NetworkInterface
	pages := ec2.NewDescribeNetworkInterfacesPaginator(p.client, &ec2.DescribeNetworkInterfacesInput{MaxResults: aws.Int32(p.opts.PageSize)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, page.NetworkInterfaces...)
	}
	return out, nil
}
