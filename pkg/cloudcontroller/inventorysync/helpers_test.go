package inventorysync

import (
	"context"
	"fmt"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/apiwrites"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/binding"
)

// fakeProvider is a hand-written provider.Provider serving one snapshot
// per region, or an error.
type fakeProvider struct {
	mu    sync.Mutex
	snaps map[string]*provider.Snapshot
	err   error
	calls int
}

func (p *fakeProvider) Inventory(_ context.Context, region string) (*provider.Snapshot, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	if p.err != nil {
		return nil, p.err
	}
	s := *p.snaps[region]
	return &s, nil
}

func (p *fakeProvider) SyncSecurityGroups(context.Context, string, provider.SecurityGroupSpec) (provider.SyncResult, error) {
	return provider.SyncResult{}, provider.ErrNotSupported
}

func (p *fakeProvider) set(region string, s *provider.Snapshot, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.snaps == nil {
		p.snaps = map[string]*provider.Snapshot{}
	}
	p.snaps[region], p.err = s, err
}

// fleet is a snapshot of n running VMs in one VPC and one load balancer.
func fleet(region string, n int, mods ...func(*provider.VM)) *provider.Snapshot {
	s := &provider.Snapshot{Cloud: provider.AWS, Region: region, VPCs: []provider.VPC{{ID: "vpc-1", Name: "prod"}}}
	for i := range n {
		vm := provider.VM{ID: fmt.Sprintf("i-%05d", i), Name: fmt.Sprintf("vm-%d", i), VPCID: "vpc-1", State: provider.VMRunning,
			Tags: map[string]string{"env": "prod"},
			NICs: []provider.NIC{{ID: fmt.Sprintf("eni-%05d", i), Primary: true, VPCID: "vpc-1", PrivateIPs: []string{fmt.Sprintf("10.0.%d.%d", i/250, i%250+1)}}}}
		for _, m := range mods {
			m(&vm)
		}
		s.VMs = append(s.VMs, vm)
	}
	s.Services = []provider.Service{{ID: "arn:aws:elasticloadbalancing:us-east-1:1:loadbalancer/app/web/1", Name: "web", Kind: provider.AWSLoadBalancer,
		VPCID: "vpc-1", PrivateIPs: []string{"10.0.200.1"}, Ports: []provider.Port{{Protocol: "TCP", Port: 443}}}}
	s.Sort()
	return s
}

var (
	acctKey = types.NamespacedName{Namespace: "tenant-a", Name: "acct"}
	t0      = metav1.Now()
)

func account(regions ...string) *cloudv1alpha1.CloudProviderAccount {
	return &cloudv1alpha1.CloudProviderAccount{
		ObjectMeta: metav1.ObjectMeta{Name: acctKey.Name, Namespace: acctKey.Namespace, Generation: 1},
		Spec: cloudv1alpha1.CloudProviderAccountSpec{Provider: cloudv1alpha1.ProviderAWS, PollIntervalSeconds: ptr.To[int32](60),
			AWS: &cloudv1alpha1.AWSAccountConfig{Regions: regions}},
	}
}

func selector() *cloudv1alpha1.CloudEntitySelector {
	return &cloudv1alpha1.CloudEntitySelector{
		ObjectMeta: metav1.ObjectMeta{Name: "sel", Namespace: "tenant-a", UID: "sel-uid", CreationTimestamp: t0},
		Spec: cloudv1alpha1.CloudEntitySelectorSpec{
			AccountRef:          cloudv1alpha1.CloudProviderAccountReference{Name: "acct"},
			VirtualMachines:     []cloudv1alpha1.VirtualMachineMatch{{VPCMatch: &cloudv1alpha1.EntityMatch{IDs: []string{"vpc-1"}}}},
			CloudNativeServices: []cloudv1alpha1.CloudNativeServiceMatch{{Kinds: []cloudv1alpha1.CloudNativeServiceKind{cloudv1alpha1.ServiceKindAWSLoadBalancer}}},
		},
	}
}

// newClient is a fake API server holding objs that gives created objects
// a UID, with its writes counted.
func newClient(t *testing.T, counter *apiwrites.Counter, objs ...client.Object) client.Client {
	t.Helper()
	s, err := scheme.New()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var mu sync.Mutex
	base := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).
		WithIndex(&cloudv1alpha1.CloudEntitySelector{}, binding.IndexAccount, func(o client.Object) []string {
			return []string{binding.AccountKey(o.(*cloudv1alpha1.CloudEntitySelector)).String()}
		}).
		WithInterceptorFuncs(interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			mu.Lock()
			n++
			o.SetUID(types.UID(fmt.Sprintf("uid-%d", n)))
			mu.Unlock()
			return c.Create(ctx, o, opts...)
		}}).Build()
	return counter.Wrap(base)
}

// imported lists what is stored.
func imported(t *testing.T, c client.Client) (vms []cloudv1alpha1.VirtualMachine, nics []cloudv1alpha1.NetworkInterface, svcs []cloudv1alpha1.CloudNativeService) {
	t.Helper()
	o, err := ListImported(t.Context(), c, "tenant-a", nil)
	if err != nil {
		t.Fatal(err)
	}
	return o.VirtualMachines, o.NetworkInterfaces, o.CloudNativeServices
}
