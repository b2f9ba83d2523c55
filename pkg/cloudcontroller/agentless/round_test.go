package agentless

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/accountprovider"
	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

var account = types.NamespacedName{Namespace: "t", Name: "aws"}

// fakeProvider records the specs it is asked to sync.
type fakeProvider struct {
	mu         sync.Mutex
	specs      map[string]provider.SecurityGroupSpec // by VPC
	unrealized []provider.Unrealized
	err        error
}

func (p *fakeProvider) Inventory(context.Context, string) (*provider.Snapshot, error) {
	return nil, nil
}

func (p *fakeProvider) SyncSecurityGroups(_ context.Context, _ string, spec provider.SecurityGroupSpec) (provider.SyncResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.specs == nil {
		p.specs = map[string]provider.SecurityGroupSpec{}
	}
	p.specs[spec.VPCID] = spec
	return provider.SyncResult{Writes: len(spec.Groups), Unrealized: p.unrealized}, p.err
}

type fakeProviders map[types.NamespacedName]provider.Provider

func (f fakeProviders) Get(k types.NamespacedName) (accountprovider.Entry, bool) {
	p, ok := f[k]
	return accountprovider.Entry{Provider: p}, ok
}

// fakeConsumer records reports.
type fakeConsumer struct{ reports []wire.AgentlessReport }

func (c *fakeConsumer) Watch(ctx context.Context, _ *wire.View, _ consumer.Handler, _ consumer.ConnectionHandler) error {
	<-ctx.Done()
	return ctx.Err()
}

func (c *fakeConsumer) ReportAgentless(_ context.Context, rep wire.AgentlessReport) error {
	c.reports = append(c.reports, rep)
	return nil
}

func nicObject(name, vpc string) *cloudv1alpha1.NetworkInterface {
	return &cloudv1alpha1.NetworkInterface{
		ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: name,
			Labels: map[string]string{cloudv1alpha1.LabelAccountName: account.Name, cloudv1alpha1.LabelAccountNamespace: account.Namespace}},
		Spec: cloudv1alpha1.NetworkInterfaceSpec{Provider: cloudv1alpha1.ProviderAWS, CloudID: name, Region: "us-east-1", VPCID: vpc},
	}
}

func serviceObject(name string, kind cloudv1alpha1.CloudNativeServiceKind, id string, port int32) *cloudv1alpha1.CloudNativeService {
	return &cloudv1alpha1.CloudNativeService{
		ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: name},
		Spec: cloudv1alpha1.CloudNativeServiceSpec{Provider: cloudv1alpha1.ProviderAWS, Kind: kind, CloudID: id, Region: "us-east-1", VPCID: "vpc-1",
			AccountRef: cloudv1alpha1.CloudProviderAccountReference{Name: account.Name, Namespace: account.Namespace},
			Ports:      []cloudv1alpha1.ServicePort{{Protocol: "TCP", Port: port}}},
	}
}

func entity(name string, labels map[string]string) *antreav1alpha2.ExternalEntity {
	return &antreav1alpha2.ExternalEntity{ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: name, Labels: labels},
		Spec: antreav1alpha2.ExternalEntitySpec{ExternalNode: "antreaplus-cloud-controller"}}
}

func viewOf(gen uint64, eps map[string][]wire.Rule) *wire.View {
	v := &wire.View{Epoch: "e", Generation: gen, Endpoints: map[string]*wire.Endpoint{}}
	for name, rules := range eps {
		ep := &wire.Endpoint{Name: name, Generation: gen, Rules: map[wire.RuleID]wire.Rule{}}
		for _, r := range rules {
			ep.Order = append(ep.Order, r.ID())
			ep.Rules[r.ID()] = r
		}
		v.Endpoints[name] = ep
	}
	return v
}

func TestRound(t *testing.T) {
	s, err := scheme.New()
	if err != nil {
		t.Fatal(err)
	}
	reader := fake.NewClientBuilder().WithScheme(s).WithObjects(
		nicObject("eni-1", "vpc-1"), nicObject("eni-2", "vpc-2"),
		entity("nic-eni-1", map[string]string{cloudv1alpha1.LabelEntityKind: cloudv1alpha1.EntityKindVirtualMachine, cloudv1alpha1.LabelEntityNetworkInterface: "eni-1"}),
		entity("svc-db", map[string]string{cloudv1alpha1.LabelEntityKind: cloudv1alpha1.EntityKindCloudNativeService, cloudv1alpha1.LabelEntityName: "db"}),
		entity("svc-sql", map[string]string{cloudv1alpha1.LabelEntityKind: cloudv1alpha1.EntityKindCloudNativeService, cloudv1alpha1.LabelEntityName: "sql"}),
		serviceObject("db", cloudv1alpha1.CloudNativeServiceKind(provider.AWSRDS), "arn:aws:rds:us-east-1:1:db:db", 5432),
		serviceObject("sql", cloudv1alpha1.CloudNativeServiceKind(provider.AzureSQL), "/subscriptions/s/sql", 1433),
	).Build()
	policy := wire.PolicyRef{Kind: string(policyrules.KindNetworkPolicy), Namespace: "t", Name: "web"}
	rules := []wire.Rule{
		{Direction: policyrules.DirectionIngress, Action: policyrules.ActionAllow, Policy: policy, Name: "http",
			Peers: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, Ports: []wire.Port{{Protocol: policyrules.ProtocolTCP, Port: 80}}},
		{Direction: policyrules.DirectionIngress, Action: policyrules.ActionDrop, Policy: policy, Name: "deny", AnyPeer: true},
	}
	cloud := &fakeProvider{unrealized: []provider.Unrealized{{Object: "antreaplus-t.nic-eni-1", Reason: "61 ingress rules exceed the quota of 60"}}}
	cons := &fakeConsumer{}
	syncer := New(Options{Consumer: cons, Reader: reader, Providers: fakeProviders{account: cloud}})

	retry, err := syncer.round(t.Context(), viewOf(7, map[string][]wire.Rule{"t/nic-eni-1": rules, "t/svc-db": rules, "t/svc-sql": rules}), "change")
	if err != nil || retry {
		t.Fatalf("round: retry %v, %v; a service that no round will place is no reason to retry", retry, err)
	}
	spec := cloud.specs["vpc-1"]
	if len(spec.Groups) != 2 || !slices.Equal(spec.Attachments["eni-1"], []string{"antreaplus-t.nic-eni-1"}) ||
		!slices.Equal(spec.Services["arn:aws:rds:us-east-1:1:db:db"], []string{"antreaplus-t.svc-db"}) {
		t.Fatalf("vpc-1 spec = %+v", spec)
	}
	// The database's group allows its port only.
	if g := spec.Groups[slices.IndexFunc(spec.Groups, func(g provider.SecurityGroup) bool { return g.Name == "antreaplus-t.svc-db" })]; len(g.Ingress) != 0 || len(g.Egress) != 0 {
		t.Errorf("the database's group = %+v; want nothing: port 80 is not its port 5432", g)
	}
	if empty, ok := cloud.specs["vpc-2"]; !ok || len(empty.Groups) != 0 {
		t.Fatalf("vpc-2, a VPC of the inventory without endpoints, must be synced empty (stale groups go): %+v, %v", empty, ok)
	}
	rep := cons.reports[0]
	if rep.AppliedGeneration != 7 || len(rep.Endpoints) != 2 {
		t.Fatalf("report = %+v", rep)
	}
	if f := rep.Endpoints[0].Findings; rep.Endpoints[0].Name != "t/nic-eni-1" || len(f) != 1 || f[0].Reason != ReasonCloudRefused {
		t.Errorf("findings of the interface = %+v", rep.Endpoints[0])
	}
	if f := rep.Endpoints[1].Findings; rep.Endpoints[1].Name != "t/svc-sql" || f[0].Reason != "NotANetworkInterface" || strings.HasPrefix(f[0].Message, settledMark) {
		t.Errorf("findings of the Azure SQL service = %+v", rep.Endpoints[1])
	}

	// A provider without agentless enforcement says so on every endpoint
	// of the VPC.
	cloud.err, cloud.unrealized = fmt.Errorf("security groups: %w", provider.ErrNotSupported), nil
	if _, err := syncer.round(t.Context(), viewOf(8, map[string][]wire.Rule{"t/nic-eni-1": rules}), "resync"); err != nil {
		t.Fatal(err)
	}
	if f := cons.reports[1].Endpoints; len(f) != 1 || f[0].Findings[0].Reason != ReasonNotSupported {
		t.Errorf("report of an unsupported provider = %+v", cons.reports[1])
	}

	// Without a provider, every endpoint of the account says why.
	syncer.opts.Providers = fakeProviders{}
	retry, err = syncer.round(t.Context(), viewOf(8, map[string][]wire.Rule{"t/nic-eni-1": rules}), "resync")
	if err != nil || !retry {
		t.Fatalf("round without a provider: retry %v, %v; want a retry", retry, err)
	}
	if f := cons.reports[2].Endpoints; len(f) != 1 || f[0].Findings[0].Reason != ReasonNoProvider {
		t.Errorf("report without a provider = %+v", cons.reports[2])
	}
}
