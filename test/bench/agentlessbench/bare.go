package main

import (
	"context"
	"errors"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	azcloud "github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	azpolicy "github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/pkg/cloud/azure"
)

// The baselines: what a round over every VPC cannot avoid reading, through
// the bare SDK clients with the provider's page size, and nothing else (no
// plan, no write, no retry policy of ours).

// bareEC2 describes each VPC's managed security groups and its
// interfaces, the two describes of aws.Provider.SyncSecurityGroups, as
// many VPCs at a time as the syncer.
type bareEC2 struct{ client *ec2.Client }

func newBareEC2(opts aws.Options) (*bareEC2, error) {
	creds := sdkaws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(opts.AccessKeyID, opts.SecretAccessKey, ""))
	return &bareEC2{client: ec2.New(ec2.Options{Region: awsRegion, Credentials: creds, BaseEndpoint: sdkaws.String(opts.Endpoint)})}, nil
}

func (b *bareEC2) readAll(ctx context.Context, vpcs []string) error {
	errs := make([]error, len(vpcs))
	sem := make(chan struct{}, syncConcurrency)
	var wg sync.WaitGroup
	for i, vpc := range vpcs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = b.read(ctx, vpc)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (b *bareEC2) read(ctx context.Context, vpc string) error {
	inVPC := ec2types.Filter{Name: sdkaws.String("vpc-id"), Values: []string{vpc}}
	groups := ec2.NewDescribeSecurityGroupsPaginator(b.client, &ec2.DescribeSecurityGroupsInput{MaxResults: sdkaws.Int32(1000),
		Filters: []ec2types.Filter{inVPC, {Name: sdkaws.String("group-name"), Values: []string{groupPrefix + "*"}}}})
	for groups.HasMorePages() {
		if _, err := groups.NextPage(ctx); err != nil {
			return err
		}
	}
	nics := ec2.NewDescribeNetworkInterfacesPaginator(b.client, &ec2.DescribeNetworkInterfacesInput{MaxResults: sdkaws.Int32(1000),
		Filters: []ec2types.Filter{inVPC}})
	for nics.HasMorePages() {
		if _, err := nics.NextPage(ctx); err != nil {
			return err
		}
	}
	return nil
}

// bareARM lists the subscription's ASGs, NSGs and interfaces, the three
// lists of azure.Provider.SyncSecurityGroups, once: ARM lists them per
// subscription, so one listing holds every VNet's state.
type bareARM struct {
	asgs *armnetwork.ApplicationSecurityGroupsClient
	nsgs *armnetwork.SecurityGroupsClient
	nics *armnetwork.InterfacesClient
}

func newBareARM(opts azure.Options) (*bareARM, error) {
	clientOpts := azpolicy.ClientOptions{
		Cloud: azcloud.Configuration{ActiveDirectoryAuthorityHost: opts.AuthorityHost + "/",
			Services: map[azcloud.ServiceName]azcloud.ServiceConfiguration{azcloud.ResourceManager: {Endpoint: opts.Endpoint, Audience: opts.Endpoint}}},
		Transport: opts.Transport,
	}
	cred, err := azidentity.NewClientSecretCredential(opts.TenantID, opts.ClientID, opts.ClientSecret,
		&azidentity.ClientSecretCredentialOptions{ClientOptions: clientOpts, DisableInstanceDiscovery: true})
	if err != nil {
		return nil, err
	}
	armOpts := &arm.ClientOptions{ClientOptions: clientOpts}
	b := &bareARM{}
	if b.asgs, err = armnetwork.NewApplicationSecurityGroupsClient(opts.SubscriptionID, cred, armOpts); err != nil {
		return nil, err
	}
	if b.nsgs, err = armnetwork.NewSecurityGroupsClient(opts.SubscriptionID, cred, armOpts); err != nil {
		return nil, err
	}
	b.nics, err = armnetwork.NewInterfacesClient(opts.SubscriptionID, cred, armOpts)
	return b, err
}

func (b *bareARM) read(ctx context.Context) error {
	if err := drain(ctx, b.asgs.NewListAllPager(nil)); err != nil {
		return err
	}
	if err := drain(ctx, b.nsgs.NewListAllPager(nil)); err != nil {
		return err
	}
	return drain(ctx, b.nics.NewListAllPager(nil))
}

// drain reads every page.
func drain[R any](ctx context.Context, pager interface {
	More() bool
	NextPage(context.Context) (R, error)
}) error {
	for pager.More() {
		if _, err := pager.NextPage(ctx); err != nil {
			return err
		}
	}
	return nil
}
