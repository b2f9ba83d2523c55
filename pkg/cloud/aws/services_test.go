package aws_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

func service(t *testing.T, snap *provider.Snapshot, id string) (provider.Service, bool) {
	t.Helper()
	i := slices.IndexFunc(snap.Services, func(s provider.Service) bool { return s.ID == id })
	if i < 0 {
		return provider.Service{}, false
	}
	return snap.Services[i], true
}

func TestLoadBalancersFollowTheCloud(t *testing.T) {
	f := newFixture(t, 1)
	p := f.provider(t, nil)
	inventory := func() *provider.Snapshot {
		t.Helper()
		snap, err := p.Inventory(t.Context(), region)
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	if snap := inventory(); len(snap.Services) != 0 {
		t.Fatalf("services %+v in an empty account", snap.Services)
	}

	// A new internal ALB appears with the addresses of its interfaces.
	lb, err := f.emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: region, VPCID: f.vpcs[0], Name: "web", Internal: true,
		Listeners: []awsemu.Listener{{Protocol: "HTTPS", Port: 443}, {Protocol: "HTTP", Port: 80}}, Tags: map[string]string{"env": "prod"}})
	if err != nil {
		t.Fatal(err)
	}
	nlb, err := f.emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: region, VPCID: f.vpcs[0], Name: "dns", Type: "network", Zones: 1,
		Listeners: []awsemu.Listener{{Protocol: "TCP_UDP", Port: 53}}})
	if err != nil {
		t.Fatal(err)
	}
	snap := inventory()
	got, ok := service(t, snap, lb.ARN)
	if !ok || got.Kind != provider.AWSLoadBalancer || got.Name != "web" || got.VPCID != f.vpcs[0] || got.DNSName != lb.DNSName ||
		!slices.Equal(got.PrivateIPs, sorted(lb.PrivateIPs)) || len(got.PublicIPs) != 0 || got.Tags["env"] != "prod" || len(got.SecurityGroupIDs) != 1 {
		t.Fatalf("load balancer %+v; want %+v", got, lb)
	}
	wantPorts := []provider.Port{{Name: "http-80", Protocol: "TCP", Port: 80}, {Name: "https-443", Protocol: "TCP", Port: 443}}
	if !slices.Equal(got.Ports, wantPorts) {
		t.Errorf("ports %v; want %v", got.Ports, wantPorts)
	}
	got, _ = service(t, snap, nlb.ARN)
	wantPorts = []provider.Port{{Name: "tcp-53", Protocol: "TCP", Port: 53}, {Name: "udp-53", Protocol: "UDP", Port: 53}}
	if len(got.PrivateIPs) != 1 || len(got.PublicIPs) != 1 || got.PublicIPs[0] != nlb.PublicIPs[0] || !slices.Equal(got.Ports, wantPorts) {
		t.Errorf("internet-facing NLB %+v; want one private and public IP and ports %v", got, wantPorts)
	}
	if len(snap.VMs) != 0 {
		t.Errorf("the load balancers' interfaces became VMs: %+v", snap.VMs)
	}

	// ELB moves to new interfaces: the addresses follow.
	moved, err := f.emu.ReplaceLoadBalancerInterfaces(region, lb.ARN)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := service(t, inventory(), lb.ARN); !slices.Equal(got.PrivateIPs, sorted(moved.PrivateIPs)) || slices.Equal(got.PrivateIPs, sorted(lb.PrivateIPs)) {
		t.Errorf("after the move: %v; want %v", got.PrivateIPs, moved.PrivateIPs)
	}

	// Deleted: gone from the next snapshot.
	if err := f.emu.DeleteLoadBalancer(region, lb.ARN); err != nil {
		t.Fatal(err)
	}
	if _, ok := service(t, inventory(), lb.ARN); ok {
		t.Error("deleted load balancer still listed")
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestServicesAcrossPages(t *testing.T) {
	f := newFixture(t, 2)
	for i := range 45 {
		if _, err := f.emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: region, VPCID: f.vpcs[i%2], Name: fmt.Sprintf("lb-%02d", i), Zones: 1,
			Listeners: []awsemu.Listener{{Protocol: "HTTP", Port: 80}}, Tags: map[string]string{"n": fmt.Sprint(i)}}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.emu.AddDBInstance(awsemu.DBInstanceSpec{Region: region, VPCID: f.vpcs[i%2], Identifier: fmt.Sprintf("db-%02d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	p := f.provider(t, func(o *aws.Options) { o.PageSize = 10; o.Resolver = f.emu })
	snap, err := p.Inventory(t.Context(), region)
	if err != nil {
		t.Fatal(err)
	}
	var lbs, dbs int
	for _, s := range snap.Services {
		switch {
		case s.Kind == provider.AWSLoadBalancer && len(s.PrivateIPs) == 1 && len(s.Ports) == 1 && s.Tags["n"] != "":
			lbs++
		case s.Kind == provider.AWSRDS && len(s.PrivateIPs) == 1 && len(s.Ports) == 1:
			dbs++
		default:
			t.Errorf("incomplete service %+v", s)
		}
	}
	if lbs != 45 || dbs != 45 {
		t.Fatalf("%d load balancers and %d DB instances; want 45 of each", lbs, dbs)
	}
	calls := f.emu.CallCounts()
	// 10 a page for ELBv2; RDS pages hold at least 20.
	if calls["DescribeLoadBalancers"] != 5 || calls["DescribeListeners"] != 45 || calls["DescribeTags"] != 3 || calls["DescribeDBInstances"] != 3 {
		t.Errorf("calls %v; want 5 DescribeLoadBalancers, 45 DescribeListeners, 3 DescribeTags, 3 DescribeDBInstances", calls)
	}
}

func TestDBInstances(t *testing.T) {
	f := newFixture(t, 1)
	db, err := f.emu.AddDBInstance(awsemu.DBInstanceSpec{Region: region, VPCID: f.vpcs[0], Identifier: "orders", Engine: "mysql",
		Tags: map[string]string{"tier": "data"}})
	if err != nil {
		t.Fatal(err)
	}
	p := f.provider(t, func(o *aws.Options) { o.Resolver = f.emu })
	snap, err := p.Inventory(t.Context(), region)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := service(t, snap, db.ARN)
	want := []provider.Port{{Name: "mysql", Protocol: "TCP", Port: 3306}}
	if !ok || got.Kind != provider.AWSRDS || got.Name != "orders" || got.VPCID != f.vpcs[0] || got.DNSName != db.Address ||
		!slices.Equal(got.PrivateIPs, []string{db.PrivateIP}) || !slices.Equal(got.Ports, want) || got.Tags["tier"] != "data" || len(got.SecurityGroupIDs) != 1 {
		t.Fatalf("DB instance %+v; want %+v", got, db)
	}
	// A failover moves the address behind the same name.
	moved, err := f.emu.FailOverDBInstance(region, "orders")
	if err != nil {
		t.Fatal(err)
	}
	if snap, err = p.Inventory(t.Context(), region); err != nil {
		t.Fatal(err)
	}
	if got, _ := service(t, snap, db.ARN); !slices.Equal(got.PrivateIPs, []string{moved.PrivateIP}) || moved.PrivateIP == db.PrivateIP {
		t.Errorf("after failover: %v; want [%s]", got.PrivateIPs, moved.PrivateIP)
	}
	// A name that does not resolve leaves the service without addresses.
	unresolved := f.provider(t, func(o *aws.Options) { o.Resolver = noHosts{} })
	if snap, err = unresolved.Inventory(t.Context(), region); err != nil {
		t.Fatal(err)
	}
	if got, ok := service(t, snap, db.ARN); !ok || len(got.PrivateIPs) != 0 || got.DNSName != db.Address {
		t.Errorf("unresolved DB instance %+v; want it listed by name without addresses", got)
	}
	if err := f.emu.DeleteDBInstance(region, "orders"); err != nil {
		t.Fatal(err)
	}
	if snap, err = p.Inventory(t.Context(), region); err != nil || len(snap.Services) != 0 {
		t.Fatalf("after deletion: %+v, %v", snap.Services, err)
	}
}

type noHosts struct{}

func (noHosts) LookupHost(context.Context, string) ([]string, error) {
	return nil, fmt.Errorf("no such host")
}

func TestServicesThrottled(t *testing.T) {
	f := newFixture(t, 1)
	if _, err := f.emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: region, VPCID: f.vpcs[0], Name: "web"}); err != nil {
		t.Fatal(err)
	}
	p := f.provider(t, func(o *aws.Options) { o.MaxAttempts = 4 })
	for _, action := range []string{"DescribeLoadBalancers", "DescribeListeners", "DescribeDBInstances"} {
		t.Run(action, func(t *testing.T) {
			// Three throttled calls are retried within one Inventory.
			f.emu.ResetCalls()
			f.emu.Throttle(action, 3)
			snap, err := p.Inventory(t.Context(), region)
			if err != nil || len(snap.Services) != 1 {
				t.Fatalf("throttled 3 times: %v (services %d)", err, len(snap.Services))
			}
			if got := f.emu.Calls(action); got != 4 {
				t.Errorf("%s calls = %d; want 4 (3 throttled, 1 served)", action, got)
			}
			// Throttled beyond every attempt: that kind failed with
			// ErrThrottled, the VMs are still read.
			f.emu.Throttle(action, -1)
			defer f.emu.ClearFaults()
			snap, err = p.Inventory(t.Context(), region)
			if err != nil || len(snap.VPCs) == 0 || len(snap.Failed) != 1 {
				t.Fatalf("throttled for good: %v, %+v; want a snapshot of the VPCs and one failed kind", err, snap)
			}
			if f := snap.Failed[0]; !errors.Is(f.Err, provider.ErrThrottled) || !strings.Contains(f.Err.Error(), "Throttling") {
				t.Fatalf("failed kind %+v; want ErrThrottled with the cloud's Throttling code", f)
			}
			want := provider.AWSLoadBalancer
			if action == "DescribeDBInstances" {
				want = provider.AWSRDS
			}
			if !snap.FailedKind(want) || slices.ContainsFunc(snap.Services, func(s provider.Service) bool { return s.Kind == want }) {
				t.Errorf("kind %s must be reported failed and left out: %+v", want, snap)
			}
		})
	}
}
