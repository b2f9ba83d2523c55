// Command servicebench measures the cloud API cost of enforcing policies on
// cloud-native services: 100 policies on 100 services (RDS DB instances and
// Application Load Balancers over 4 VPCs) realised as managed security
// groups on the services, beside the same number of policies on VMs of the
// same VPCs, in the same run: sgtranslate.Translate and
// provider.SyncSecurityGroups through the real aws-sdk-go-v2 against the
// EC2, RDS and ELBv2 emulator.
//
// For each path it reports the calls of the initial realisation, of a
// resync with nothing changed and of one policy changed, against their
// floor: one read per kind of object and VPC (EC2: the managed groups and
// the interfaces; RDS: the DB instances and clusters; ELBv2: the load
// balancers) and one write per group or attachment changed; and the time of
// each sync.
//
//	go run ./test/bench/servicebench -services 100 -json _output/bench/services.json
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http/httptest"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/pkg/cloud/sgtranslate"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/test/bench/benchtable"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

const (
	keyID, secret, region = "AKIASERVICEBENCH", "service-bench-secret", "us-east-1"
	prefix                = "antreaplus-"
)

var account = types.NamespacedName{Namespace: "bench", Name: "aws"}

func main() {
	services := flag.Int("services", 100, "services (half RDS DB instances, half load balancers), one policy each; as many VMs and policies beside")
	vpcs := flag.Int("vpcs", 4, "VPCs the services and VMs are spread over")
	runs := flag.Int("runs", 3, "runs, each on a fresh emulator")
	out := flag.String("json", "", "write the figures as JSON to this file")
	flag.Parse()
	if *services < 2 || *vpcs < 1 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "servicebench: -services must be at least 2, -vpcs and -runs at least 1")
		os.Exit(1)
	}
	var samples []sample
	for i := range *runs {
		m, err := measure(context.Background(), *services, *vpcs)
		if err != nil {
			fmt.Fprintln(os.Stderr, "servicebench:", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "run %d: services %+v\n       vms %+v\n", i+1, m.paths["services"], m.paths["vms"])
		samples = append(samples, m)
	}
	var figures []benchtable.Figure
	for _, path := range []string{"services", "vms"} {
		figures = append(figures, pathFigures(path, samples)...)
	}
	figures = append(figures,
		benchtable.Summarize("services / vms: resync time", "x", benchtable.Ratios(col(samples, "services", func(p pathSample) float64 { return p.resyncTime }),
			col(samples, "vms", func(p pathSample) float64 { return p.resyncTime }))),
		benchtable.Summarize("services / vms: initial sync time", "x", benchtable.Ratios(col(samples, "services", func(p pathSample) float64 { return p.initialTime }),
			col(samples, "vms", func(p pathSample) float64 { return p.initialTime }))))
	benchtable.Print(os.Stdout, fmt.Sprintf("%d policies on %d services and %d on %d VMs in %d VPCs (AWS)", *services, *services, *services, *services, *vpcs), figures)
	fmt.Println("floor: reads, one per kind of object and VPC (services: EC2 groups and interfaces, RDS instances and clusters, ELBv2 load balancers: 5; VMs: 2); writes, one per group or attachment changed")
	fmt.Printf("machine: %d CPUs\n", runtime.NumCPU())
	if err := benchtable.WriteJSON(*out, "services", map[string]any{"services": *services, "vpcs": *vpcs, "runs": *runs, "cpus": runtime.NumCPU()}, figures); err != nil {
		fmt.Fprintln(os.Stderr, "servicebench:", err)
		os.Exit(1)
	}
}

func col(samples []sample, path string, get func(pathSample) float64) []float64 {
	out := make([]float64, len(samples))
	for i, s := range samples {
		out[i] = get(s.paths[path])
	}
	return out
}

func pathFigures(path string, samples []sample) []benchtable.Figure {
	fig := func(what, unit string, get func(pathSample) float64) benchtable.Figure {
		return benchtable.Summarize(path+": "+what, unit, col(samples, path, get))
	}
	return []benchtable.Figure{
		fig("initial: reads", "calls", func(p pathSample) float64 { return float64(p.initial.reads) }),
		fig("initial: writes", "calls", func(p pathSample) float64 { return float64(p.initial.writes) }),
		fig("initial: writes floor (a group: create, authorize, revoke default egress; an attachment: 1)", "calls", func(p pathSample) float64 { return float64(p.initialFloor) }),
		fig("initial: sync time", "ms", func(p pathSample) float64 { return 1000 * p.initialTime }),
		fig("resync, nothing changed: reads", "calls", func(p pathSample) float64 { return float64(p.resync.reads) }),
		fig("resync: read floor (one per kind and VPC)", "calls", func(p pathSample) float64 { return float64(p.readFloor) }),
		fig("resync, nothing changed: writes (target 0)", "calls", func(p pathSample) float64 { return float64(p.resync.writes) }),
		fig("resync: sync time", "ms", func(p pathSample) float64 { return 1000 * p.resyncTime }),
		fig("one policy changed: reads", "calls", func(p pathSample) float64 { return float64(p.change.reads) }),
		fig("one policy changed (a client added): writes (floor 1: authorize)", "calls", func(p pathSample) float64 { return float64(p.change.writes) }),
		fig("one policy changed: sync time", "ms", func(p pathSample) float64 { return 1000 * p.changeTime }),
	}
}

// counted are the calls of one step.
type counted struct{ reads, writes int }

func (c counted) String() string { return fmt.Sprintf("%d reads %d writes", c.reads, c.writes) }

// pathSample is what one run measured of one path.
type pathSample struct {
	initial, resync, change             counted
	initialFloor, readFloor             int
	initialTime, resyncTime, changeTime float64 // seconds
}

type sample struct{ paths map[string]pathSample }

// fixture is one emulated account with its services and VMs.
type fixture struct {
	emu      *awsemu.Server
	provider *aws.Provider
	close    func()
	// services and vms are the enforcement points of each path.
	services, vms []sgtranslate.Endpoint
}

func newFixture(n, vpcs int) (*fixture, error) {
	emu := awsemu.New(awsemu.Options{Credentials: []awsemu.Credential{{AccessKeyID: keyID, SecretAccessKey: secret}}})
	srv := httptest.NewServer(emu)
	f := &fixture{emu: emu, close: srv.Close}
	p, err := aws.New(aws.Options{AccessKeyID: keyID, SecretAccessKey: secret, Endpoint: srv.URL, MaxBackoff: time.Millisecond})
	if err != nil {
		srv.Close()
		return nil, err
	}
	f.provider = p
	ids := make([]string, vpcs)
	for v := range vpcs {
		if ids[v], err = emu.AddVPC(awsemu.VPCSpec{Region: region, Name: fmt.Sprintf("vpc-%d", v), CIDR: fmt.Sprintf("10.%d.0.0/16", v)}); err != nil {
			srv.Close()
			return nil, err
		}
	}
	for i := range n {
		vpc := ids[i%vpcs]
		loc := sgtranslate.Location{Account: account, Region: region, VPC: vpc}
		svc := sgtranslate.Service{Location: loc}
		if (i/vpcs)%2 == 0 { // every VPC holds both kinds
			db, err := emu.AddDBInstance(awsemu.DBInstanceSpec{Region: region, VPCID: vpc, Identifier: fmt.Sprintf("db-%03d", i)})
			if err != nil {
				srv.Close()
				return nil, err
			}
			svc.ID, svc.Ports = db.ARN, []provider.Port{{Protocol: "TCP", Port: db.Port}}
		} else {
			lb, err := emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: region, VPCID: vpc, Name: fmt.Sprintf("lb-%03d", i), Internal: true,
				Listeners: []awsemu.Listener{{Protocol: "HTTPS", Port: 443}}, Zones: 1})
			if err != nil {
				srv.Close()
				return nil, err
			}
			svc.ID, svc.Ports = lb.ARN, []provider.Port{{Protocol: "TCP", Port: 443}}
		}
		f.services = append(f.services, sgtranslate.Endpoint{Name: fmt.Sprintf("bench/svc-%03d", i), Service: &svc, Rules: rules(i, 0)})
		vm, err := emu.AddInstance(awsemu.InstanceSpec{Region: region, VPCID: vpc, Name: fmt.Sprintf("vm-%03d", i)})
		if err != nil {
			srv.Close()
			return nil, err
		}
		f.vms = append(f.vms, sgtranslate.Endpoint{Name: fmt.Sprintf("bench/vm-%03d", i),
			Interface: &sgtranslate.Interface{ID: vm.NICs[0], Location: loc}, Rules: rules(i, 0)})
	}
	return f, nil
}

// rules are one policy's: its clients (4 addresses) on every port, then a
// deny-all; extra adds a client (the change).
func rules(i, extra int) []wire.Rule {
	ref := wire.PolicyRef{Kind: string(policyrules.KindNetworkPolicy), Namespace: "bench", Name: fmt.Sprintf("p-%03d", i)}
	allow := wire.Rule{Direction: policyrules.DirectionIngress, Action: policyrules.ActionAllow, Policy: ref, Name: "clients",
		Tier: policyrules.TierApplication, TierPriority: 250}
	for k := range 4 + extra {
		allow.Peers = append(allow.Peers, netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 16, byte(i), byte(k + 1)}), 32))
	}
	deny := wire.Rule{Direction: policyrules.DirectionIngress, Action: policyrules.ActionDrop, Policy: ref, Name: "deny-all", AnyPeer: true,
		Tier: policyrules.TierBaseline, TierPriority: 253, RuleIndex: 1}
	return []wire.Rule{allow, deny}
}

func measure(ctx context.Context, n, vpcs int) (sample, error) {
	m := sample{paths: map[string]pathSample{}}
	for _, path := range []string{"services", "vms"} {
		f, err := newFixture(n, vpcs)
		if err != nil {
			return m, err
		}
		eps := f.services
		if path == "vms" {
			eps = f.vms
		}
		ps, err := f.run(ctx, eps)
		f.close()
		if err != nil {
			return m, fmt.Errorf("%s: %w", path, err)
		}
		m.paths[path] = ps
	}
	return m, nil
}

// run realises eps, resyncs, and changes one policy.
func (f *fixture) run(ctx context.Context, eps []sgtranslate.Endpoint) (pathSample, error) {
	var ps pathSample
	res := sgtranslate.Translate(prefix, eps)
	for _, spec := range res.Specs {
		ps.initialFloor += 3*len(spec.Groups) + len(spec.Attachments) + len(spec.Services)
		ps.readFloor += 2 // EC2: the managed groups, the interfaces
		var rds, elb bool
		for id := range spec.Services {
			rds, elb = rds || strings.Contains(id, ":rds:"), elb || strings.Contains(id, ":elasticloadbalancing:")
		}
		if rds {
			ps.readFloor += 2 // RDS: the DB instances, the DB clusters
		}
		if elb {
			ps.readFloor++ // ELBv2: the load balancers
		}
	}
	var err error
	if ps.initial, ps.initialTime, err = f.sync(ctx, res); err != nil {
		return ps, err
	}
	if ps.resync, ps.resyncTime, err = f.sync(ctx, res); err != nil {
		return ps, err
	}
	if ps.resync.writes != 0 {
		return ps, fmt.Errorf("a resync with nothing changed wrote %d calls", ps.resync.writes)
	}
	changed := slices.Clone(eps)
	changed[0].Rules = rules(0, 1)
	ps.change, ps.changeTime, err = f.sync(ctx, sgtranslate.Translate(prefix, changed))
	return ps, err
}

// sync syncs every VPC of res, 4 at a time, and counts the calls.
func (f *fixture) sync(ctx context.Context, res sgtranslate.Result) (counted, float64, error) {
	f.emu.ResetCalls()
	start := time.Now()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		sem  = make(chan struct{}, 4)
	)
	for _, spec := range res.Specs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out, err := f.provider.SyncSecurityGroups(ctx, region, spec)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			for _, u := range out.Unrealized {
				errs = append(errs, fmt.Errorf("unrealized %s: %s", u.Object, u.Reason))
			}
		})
	}
	wg.Wait()
	took := time.Since(start).Seconds()
	if len(errs) > 0 {
		return counted{}, took, errs[0]
	}
	var c counted
	for action, n := range f.emu.CallCounts() {
		if strings.HasPrefix(action, "Describe") {
			c.reads += n
		} else {
			c.writes += n
		}
	}
	return c, took, nil
}
