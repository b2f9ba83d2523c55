package azure

import (
	"context"
	"slices"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v6"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// Provider reads one Azure subscription's inventory through ARM and
// enforces agentless rules with its NSGs and ASGs.
type Provider struct {
	opts      Options
	arm       *arm.Client
	vms       *armcompute.VirtualMachinesClient
	nics      *armnetwork.InterfacesClient
	vnets     *armnetwork.VirtualNetworksClient
	publicIPs *armnetwork.PublicIPAddressesClient
	nsgs      *armnetwork.SecurityGroupsClient
	asgs      *armnetwork.ApplicationSecurityGroupsClient
	lbs       *armnetwork.LoadBalancersClient
	nats      *armnetwork.NatGatewaysClient

	mu        sync.Mutex
	locations map[string]bool // known to exist, once listed
}

var _ provider.Provider = (*Provider)(nil)

// New returns a provider for the subscription. It makes no call; the first
// Inventory tells whether the credentials work.
func New(opts Options) (*Provider, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	clientOpts := policy.ClientOptions{
		Cloud: cloud.Configuration{
			ActiveDirectoryAuthorityHost: opts.AuthorityHost,
			Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
				cloud.ResourceManager: {Endpoint: opts.Endpoint, Audience: opts.Endpoint},
			},
		},
		Transport: opts.Transport,
		Retry:     opts.retry(),
	}
	cred := opts.Credential
	if cred == nil {
		cred, err = azidentity.NewClientSecretCredential(opts.TenantID, opts.ClientID, opts.ClientSecret, &azidentity.ClientSecretCredentialOptions{
			ClientOptions: clientOpts,
			// Instance discovery only knows Microsoft's own clouds.
			DisableInstanceDiscovery: opts.AuthorityHost != DefaultAuthorityHost,
		})
		if err != nil {
			return nil, err
		}
	}
	armOpts := &arm.ClientOptions{ClientOptions: clientOpts}
	p := &Provider{opts: opts, locations: map[string]bool{}}
	if p.arm, err = arm.NewClient("antreaplus/cloud/azure", "v0.1.0", cred, armOpts); err != nil {
		return nil, err
	}
	if p.vms, err = armcompute.NewVirtualMachinesClient(opts.SubscriptionID, cred, armOpts); err != nil {
		return nil, err
	}
	if p.nics, err = armnetwork.NewInterfacesClient(opts.SubscriptionID, cred, armOpts); err != nil {
		return nil, err
	}
	if p.vnets, err = armnetwork.NewVirtualNetworksClient(opts.SubscriptionID, cred, armOpts); err != nil {
		return nil, err
	}
	if p.publicIPs, err = armnetwork.NewPublicIPAddressesClient(opts.SubscriptionID, cred, armOpts); err != nil {
		return nil, err
	}
	if p.nsgs, err = armnetwork.NewSecurityGroupsClient(opts.SubscriptionID, cred, armOpts); err != nil {
		return nil, err
	}
	if p.asgs, err = armnetwork.NewApplicationSecurityGroupsClient(opts.SubscriptionID, cred, armOpts); err != nil {
		return nil, err
	}
	if p.lbs, err = armnetwork.NewLoadBalancersClient(opts.SubscriptionID, cred, armOpts); err != nil {
		return nil, err
	}
	if p.nats, err = armnetwork.NewNatGatewaysClient(opts.SubscriptionID, cred, armOpts); err != nil {
		return nil, err
	}
	return p, nil
}

// listing is what one Inventory reads from ARM.
type listing struct {
	vms       []*armcompute.VirtualMachine
	nics      []*armnetwork.Interface
	vnets     []*armnetwork.VirtualNetwork
	publicIPs []*armnetwork.PublicIPAddress
	lbs       []*armnetwork.LoadBalancer
	nats      []*armnetwork.NatGateway
}

// Inventory reads the VNets, VMs, NICs, public IPs, load balancers and NAT
// gateways of the subscription in region. ARM lists them per subscription, so each
// poll of a region reads the whole subscription and keeps what is in the
// region.
func (p *Provider) Inventory(ctx context.Context, region string) (*provider.Snapshot, error) {
	if err := p.checkLocation(ctx, region); err != nil {
		return nil, err
	}
	// Every list runs to its end (one failing does not cancel the
	// others), so the failure told does not depend on which answered
	// first: provider.MostTelling of all of them when the VMs or their
	// networks could not be read; the load balancers failing alone are
	// reported in Snapshot.Failed and the rest imported.
	var (
		wg   sync.WaitGroup
		errs [6]error
		l    listing
	)
	run := func(i int, what string, fn func() error) {
		wg.Go(func() { errs[i] = classify(fn(), what, region) })
	}
	run(0, "listing virtual machines", func() (err error) {
		l.vms, err = collect(p.vms.NewListAllPager(&armcompute.VirtualMachinesClientListAllOptions{StatusOnly: to.Ptr("true")}), ctx,
			func(r armcompute.VirtualMachinesClientListAllResponse) []*armcompute.VirtualMachine { return r.Value })
		return err
	})
	run(1, "listing network interfaces", func() (err error) {
		l.nics, err = collect(p.nics.NewListAllPager(nil), ctx,
			func(r armnetwork.InterfacesClientListAllResponse) []*armnetwork.Interface { return r.Value })
		return err
	})
	run(2, "listing virtual networks", func() (err error) {
		l.vnets, err = collect(p.vnets.NewListAllPager(nil), ctx,
			func(r armnetwork.VirtualNetworksClientListAllResponse) []*armnetwork.VirtualNetwork { return r.Value })
		return err
	})
	run(3, "listing public IP addresses", func() (err error) {
		l.publicIPs, err = collect(p.publicIPs.NewListAllPager(nil), ctx,
			func(r armnetwork.PublicIPAddressesClientListAllResponse) []*armnetwork.PublicIPAddress {
				return r.Value
			})
		return err
	})
	run(4, "listing load balancers", func() (err error) {
		l.lbs, err = collect(p.lbs.NewListAllPager(nil), ctx,
			func(r armnetwork.LoadBalancersClientListAllResponse) []*armnetwork.LoadBalancer { return r.Value })
		return err
	})
	run(5, "listing NAT gateways", func() (err error) {
		l.nats, err = collect(p.nats.NewListAllPager(nil), ctx,
			func(r armnetwork.NatGatewaysClientListAllResponse) []*armnetwork.NatGateway { return r.Value })
		return err
	})
	wg.Wait()
	const lbs = 4
	core := append(slices.Clone(errs[:lbs]), errs[lbs+1:]...)
	if err := provider.MostTelling(core); err != nil {
		return nil, provider.MostTelling(append(core, errs[lbs]))
	}
	snap := snapshot(region, l)
	if errs[lbs] != nil {
		snap.Failed = []provider.KindFailure{{Kinds: []provider.ServiceKind{provider.AzureLoadBalancer}, Err: errs[lbs]}}
	}
	return snap, nil
}

// collect reads every page of a pager.
func collect[R, T any](pager interface {
	More() bool
	NextPage(context.Context) (R, error)
}, ctx context.Context, items func(R) []*T) ([]*T, error) {
	var out []*T
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, items(page)...)
	}
	return out, nil
}

var _ azcore.TokenCredential = (*azidentity.ClientSecretCredential)(nil)
