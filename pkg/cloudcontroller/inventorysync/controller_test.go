package inventorysync

import (
	"fmt"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/accountprovider"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/apiwrites"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/pollstatus"
)

type fixture struct {
	r       *Reconciler
	p       *fakeProvider
	counter *apiwrites.Counter
	key     Key
}

func newFixture(t *testing.T, withSelector bool) *fixture {
	t.Helper()
	objs := []client.Object{account("us-east-1")}
	if withSelector {
		objs = append(objs, selector())
	}
	f := &fixture{p: &fakeProvider{}, counter: apiwrites.NewCounter(), key: Key{Account: acctKey, Region: "us-east-1"}}
	providers := accountprovider.NewSet()
	providers.Put(acctKey, f.p)
	f.r = &Reconciler{Client: newClient(t, f.counter, objs...), Providers: providers, Status: pollstatus.New(0)}
	f.r.Options = Options{Workers: 4}.withDefaults()
	return f
}

// poll reconciles once and returns the writes it made and its requeue.
func (f *fixture) poll(t *testing.T) (int64, time.Duration) {
	t.Helper()
	before := f.counter.Total()
	res, err := f.r.Reconcile(t.Context(), f.key)
	if err != nil {
		t.Fatal(err)
	}
	return f.counter.Total() - before, res.RequeueAfter
}

func TestImportThenNothingChanged(t *testing.T) {
	f := newFixture(t, true)
	f.p.set("us-east-1", fleet("us-east-1", 50), nil)
	writes, after := f.poll(t)
	if writes != 101 || after != time.Minute {
		t.Fatalf("import: %d writes, requeue %s; want 50 VMs + 50 NICs + 1 service, 1m", writes, after)
	}
	vms, nics, svcs := imported(t, f.r.Client)
	if len(vms) != 50 || len(nics) != 50 || len(svcs) != 1 {
		t.Fatalf("imported %d VMs, %d NICs, %d services", len(vms), len(nics), len(svcs))
	}
	for _, n := range nics {
		if len(n.OwnerReferences) != 1 || n.OwnerReferences[0].Kind != "VirtualMachine" || n.OwnerReferences[0].UID == "" {
			t.Fatalf("NIC %s owners %v", n.Name, n.OwnerReferences)
		}
	}
	if o := vms[0].OwnerReferences; len(o) != 1 || o[0].Kind != "CloudEntitySelector" || o[0].UID != "sel-uid" {
		t.Fatalf("VM owners %v", o)
	}
	for range 3 {
		if writes, _ := f.poll(t); writes != 0 {
			t.Fatalf("a poll where nothing changed wrote %d times: %v", writes, f.counter.Counts())
		}
	}
}

func TestFollowsTheCloud(t *testing.T) {
	f := newFixture(t, true)
	snap := fleet("us-east-1", 3)
	f.p.set("us-east-1", snap, nil)
	f.poll(t)

	next := fleet("us-east-1", 3)
	next.VMs[0].NICs[0].PrivateIPs = []string{"10.9.9.9"}                       // IP change: 1 NIC update
	next.VMs[1].Tags = map[string]string{"env": "dev", "bad tag!": "a b/c"}     // tag change: 1 VM update
	next.VMs = append(next.VMs[:2], fleet("us-east-1", 5).VMs[3:]...)           // i-2 gone, i-3 and i-4 new
	next.VMs = append(next.VMs, provider.VM{ID: "i-99999", VPCID: "vpc-other"}) // outside the selection
	f.p.set("us-east-1", next, nil)
	writes, _ := f.poll(t)
	// 1 NIC update + 1 VM update + 2 deletes (i-2 and its NIC) + 4 creates.
	if writes != 8 {
		t.Fatalf("%d writes; want 8: %v", writes, f.counter.Counts())
	}
	vms, nics, _ := imported(t, f.r.Client)
	names := fmt.Sprint(len(vms), len(nics))
	if names != "4 4" {
		t.Fatalf("%s VMs/NICs; want 4 4", names)
	}
	for _, v := range vms {
		if v.Name == "i-00001" && v.Labels["tag.cloud.antreaplus.io/env"] != "dev" {
			t.Errorf("tag labels of i-00001: %v", v.Labels)
		}
	}
}

func TestFailedPollKeepsObjectsAndBacksOff(t *testing.T) {
	f := newFixture(t, true)
	f.p.set("us-east-1", fleet("us-east-1", 5), nil)
	f.poll(t)
	f.p.set("us-east-1", nil, fmt.Errorf("%w: RequestLimitExceeded", provider.ErrThrottled))
	for i, want := range []time.Duration{2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 8 * time.Minute} {
		writes, after := f.poll(t)
		if writes != 0 || after != want {
			t.Fatalf("throttled poll %d: %d writes, requeue %s; want 0, %s", i+1, writes, after, want)
		}
	}
	if vms, _, _ := imported(t, f.r.Client); len(vms) != 5 {
		t.Fatalf("%d VMs left after throttling; want the 5 stored", len(vms))
	}
	res, _ := f.r.Status.Get(f.key)
	if res.Reason != cloudv1alpha1.AccountReasonThrottled || res.Failures != 4 {
		t.Fatalf("status %+v", res)
	}
	f.p.set("us-east-1", fleet("us-east-1", 5), nil)
	if writes, after := f.poll(t); writes != 0 || after != time.Minute {
		t.Fatalf("recovered poll: %d writes, requeue %s", writes, after)
	}
}

func TestWithoutSelectorChecksUntilThrough(t *testing.T) {
	f := newFixture(t, false)
	f.p.set("us-east-1", nil, fmt.Errorf("%w: AuthFailure", provider.ErrAuthentication))
	// Refused: checked again, later each time, never left as it was.
	for i, want := range []time.Duration{2 * time.Minute, 4 * time.Minute, 8 * time.Minute} {
		if writes, after := f.poll(t); writes != 0 || after != want {
			t.Fatalf("refused check %d: %d writes, requeue %s; want 0, %s", i+1, writes, after, want)
		}
	}
	if f.p.calls != 3 {
		t.Fatalf("%d polls; want 3", f.p.calls)
	}
	res, _ := f.r.Status.Get(f.key)
	if res.Reason != cloudv1alpha1.AccountReasonAuthenticationFailed {
		t.Fatalf("status %+v", res)
	}
	// Through: checked once per provider from then on.
	f.p.set("us-east-1", fleet("us-east-1", 1), nil)
	for range 3 {
		if writes, after := f.poll(t); writes != 0 || after != 0 {
			t.Fatalf("%d writes, requeue %s", writes, after)
		}
	}
	if f.p.calls != 4 {
		t.Fatalf("%d polls; want 4: a check that got through is not repeated", f.p.calls)
	}
	if res, _ := f.r.Status.Get(f.key); !res.Succeeded() {
		t.Fatalf("status %+v", res)
	}
}

func TestPartialPollKeepsTheKindNotRead(t *testing.T) {
	f := newFixture(t, true)
	f.p.set("us-east-1", fleet("us-east-1", 2), nil)
	f.poll(t)
	if _, _, svcs := imported(t, f.r.Client); len(svcs) != 1 {
		t.Fatalf("%d services imported; want 1", len(svcs))
	}
	// The load balancers cannot be read (a proxy answers 403): the VMs
	// are followed, the load balancer kept, the credentials said refused.
	partial := fleet("us-east-1", 3)
	partial.Services = nil
	partial.Failed = []provider.KindFailure{{Kinds: []provider.ServiceKind{provider.AWSLoadBalancer},
		Err: fmt.Errorf("%w: DescribeLoadBalancers in us-east-1: HTTP 403 (the answer's error code could not be read)", provider.ErrAuthentication)}}
	f.p.set("us-east-1", partial, nil)
	for range 2 {
		if _, after := f.poll(t); after != time.Minute {
			t.Fatalf("partial poll requeued after %s; want the interval: the VMs are still followed", after)
		}
	}
	vms, _, svcs := imported(t, f.r.Client)
	if len(vms) != 3 || len(svcs) != 1 {
		t.Fatalf("%d VMs, %d services; want the 3 VMs polled and the load balancer kept", len(vms), len(svcs))
	}
	res, _ := f.r.Status.Get(f.key)
	want := "load balancers (ELBv2) not read (cloud refused the credentials: DescribeLoadBalancers in us-east-1: HTTP 403 (the answer's error code could not be read)); the VMs were polled"
	if res.Reason != cloudv1alpha1.AccountReasonAuthenticationFailed || !res.Partial || res.Message != want {
		t.Fatalf("status %+v; want AuthenticationFailed, partial, %q", res.Outcome, want)
	}
}

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		interval time.Duration
		failures int
		want     time.Duration
	}{
		{time.Minute, 0, time.Minute}, {time.Minute, 1, 2 * time.Minute}, {time.Minute, 3, 8 * time.Minute},
		{time.Minute, 10, 8 * time.Minute}, {time.Hour, 1, time.Hour + 30*time.Minute},
	} {
		if got := Backoff(tc.interval, tc.failures); got != tc.want {
			t.Errorf("Backoff(%s, %d) = %s; want %s", tc.interval, tc.failures, got, tc.want)
		}
	}
	if got := (Options{}).Interval(account()); got != time.Minute {
		t.Errorf("interval %s", got)
	}
	a := account()
	*a.Spec.PollIntervalSeconds = 5
	if got := (Options{}).Interval(a); got != 30*time.Second {
		t.Errorf("interval below the minimum: %s", got)
	}
}
