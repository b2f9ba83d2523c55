package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/pkg/cloud/azure"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
)

const (
	awsRegion    = "us-east-1"
	awsKeyID     = "AKIAAGENTLESSBENCH"
	awsSecret    = "agentlessbench-secret"
	azureRegion  = "eastus"
	azureClient  = "agentlessbench-app"
	azureSecret  = "agentlessbench-secret"
	agentlessEEs = "antreaplus-cloud-controller"
)

// cloud is one emulated account with its provider: what the benchmark
// realises the policies on.
type cloud struct {
	name    string
	region  string
	account types.NamespacedName
	// provider is the real provider (real SDK) pointed at the emulator.
	provider provider.Provider
	// vpcs are the VPC (VNet) ids, in creation order.
	vpcs []string
	// calls returns the emulator's call counts by operation.
	calls func() map[string]int
	reset func()
	// isWrite tells the mutating operations apart.
	isWrite func(op string) bool
	// bareRead is the baseline: what a round over every VPC cannot avoid
	// reading, through the bare SDK (no plan, no write).
	bareRead func(ctx context.Context) error
	close    func()
}

// vmTags are the cloud tags of VM i: its application (apps of vmsPerApp
// VMs, spread over the VPCs), a monitoring role on one VM in a hundred,
// and the tag of the VM that gets the oversized group.
func vmTags(i, apps int) map[string]string {
	tags := map[string]string{"env": "prod", "app": appName(i % apps), "team": fmt.Sprintf("team-%d", i%20)}
	if i%100 == 99 {
		tags["role"] = "monitoring"
	}
	if i == 0 {
		tags["partners"] = "yes"
	}
	return tags
}

func appName(k int) string { return fmt.Sprintf("app-%03d", k) }

// newAWS serves an EC2 emulator holding s.vms instances, one interface
// each, over s.vpcs VPCs.
func newAWS(s settings) (*cloud, error) {
	emu := awsemu.New(awsemu.Options{Credentials: []awsemu.Credential{{AccessKeyID: awsKeyID, SecretAccessKey: awsSecret}}})
	c := &cloud{name: "aws", region: awsRegion, account: types.NamespacedName{Namespace: "tenant-aws", Name: "aws"},
		calls: emu.CallCounts, reset: emu.ResetCalls, isWrite: awsWrite}
	for v := range s.vpcs {
		id, err := emu.AddVPC(awsemu.VPCSpec{Region: awsRegion, Name: fmt.Sprintf("vpc-%d", v), CIDR: fmt.Sprintf("10.%d.0.0/16", v)})
		if err != nil {
			return nil, err
		}
		c.vpcs = append(c.vpcs, id)
	}
	for i := range s.vms {
		spec := awsemu.InstanceSpec{Region: awsRegion, VPCID: c.vpcs[i%len(c.vpcs)], Name: fmt.Sprintf("vm-%05d", i), Tags: vmTags(i, s.apps())}
		if _, err := emu.AddInstance(spec); err != nil {
			return nil, err
		}
	}
	srv := httptest.NewServer(emu)
	c.close = srv.Close
	opts := aws.Options{AccessKeyID: awsKeyID, SecretAccessKey: awsSecret, Endpoint: srv.URL}
	p, err := aws.New(opts)
	if err != nil {
		srv.Close()
		return nil, err
	}
	c.provider = p
	bare, err := newBareEC2(opts)
	if err != nil {
		srv.Close()
		return nil, err
	}
	c.bareRead = func(ctx context.Context) error { return bare.readAll(ctx, c.vpcs) }
	return c, nil
}

// awsWrite: every EC2 action that is not a Describe changes something.
func awsWrite(action string) bool { return !strings.HasPrefix(action, "Describe") }

// newAzure serves an ARM emulator over TLS holding s.vms VMs, one NIC
// each, over s.vpcs VNets.
func newAzure(s settings) (*cloud, error) {
	emu := azureemu.New(azureemu.Options{Clients: []azureemu.Client{{ClientID: azureClient, Secret: azureSecret}}})
	c := &cloud{name: "azure", region: azureRegion, account: types.NamespacedName{Namespace: "tenant-azure", Name: "azure"},
		calls: emu.CallCounts, reset: emu.ResetCalls, isWrite: azureWrite}
	for v := range s.vpcs {
		id, err := emu.AddVNet(azureemu.VNetSpec{Location: azureRegion, Name: fmt.Sprintf("vnet-%d", v), Prefix: fmt.Sprintf("10.%d.0.0/16", v)})
		if err != nil {
			return nil, err
		}
		c.vpcs = append(c.vpcs, id)
	}
	for i := range s.vms {
		spec := azureemu.VMSpec{VNetID: c.vpcs[i%len(c.vpcs)], Name: fmt.Sprintf("vm-%05d", i), Tags: vmTags(i, s.apps())}
		if _, err := emu.AddVM(spec); err != nil {
			return nil, err
		}
	}
	srv := httptest.NewTLSServer(emu)
	c.close = srv.Close
	opts := azure.Options{
		SubscriptionID: emu.SubscriptionID(), TenantID: emu.TenantID(), ClientID: azureClient, ClientSecret: azureSecret,
		Endpoint: srv.URL, AuthorityHost: srv.URL, Transport: srv.Client(), PollFrequency: s.azurePoll,
	}
	p, err := azure.New(opts)
	if err != nil {
		srv.Close()
		return nil, err
	}
	c.provider = p
	bare, err := newBareARM(opts)
	if err != nil {
		srv.Close()
		return nil, err
	}
	c.bareRead = bare.read
	return c, nil
}

// azureWrite: PUTs and DELETEs; lists, GETs, polls of long-running
// operations and tokens are reads.
func azureWrite(op string) bool {
	return strings.HasSuffix(op, ".CreateOrUpdate") || strings.HasSuffix(op, ".Delete")
}

// counted is what the emulator received since the last reset: reads,
// of which lists (describes), and writes.
type counted struct{ reads, lists, writes int }

func (c *cloud) counted() counted {
	var n counted
	for op, k := range c.calls() {
		switch {
		case c.isWrite(op):
			n.writes += k
		case strings.HasPrefix(op, "Describe") || strings.HasSuffix(op, ".ListAll"):
			n.lists += k
			n.reads += k
		default:
			n.reads += k
		}
	}
	return n
}

func (n counted) total() int { return n.reads + n.writes }

// warmUp makes the calls a live controller has made long before a sync
// (the Azure token and location check) so that they are not counted.
func (c *cloud) warmUp(ctx context.Context) error {
	_, err := c.provider.SyncSecurityGroups(ctx, c.region, provider.SecurityGroupSpec{VPCID: c.vpcs[0], Prefix: groupPrefix})
	if err != nil {
		return fmt.Errorf("%s: warming up: %w", c.name, err)
	}
	return nil
}
