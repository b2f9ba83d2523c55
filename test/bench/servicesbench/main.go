// Command servicesbench measures how fast a federated Service converges in
// a sandbox federation of real clusters, with everything the sandbox runs:
// federation managers in the supervisors, and a member controller and a DNS
// server (our CoreDNS build) in every member.
//
// For each member count it exports Services (NodePort, from member-1 and
// member-2 in turn), one every -interval and then all at once, and takes,
// per Service, the time from the ServiceExport's creation until, in every
// member, the ServiceImport has its IP, an imported EndpointSlice has an
// endpoint, and the member's DNS server answers the clusterset.local name
// with that IP. The baseline, measured in the same run, is the time until
// the exporting member's own API server reports the ServiceExport on a
// watch: the floor under any controller. Then it measures a scope change
// (docs/scoped-exports.md): the last member labelled into and out of the
// scope of member-1's exports, beside an export and an unexport of as
// many Services in the same run.
//
//	go run ./test/bench/servicesbench -members 3,10 -services 100 -json _output/bench/services.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/toolchain"
	"antreaplus.io/antreaplus/test/bench/benchtable"
	"antreaplus.io/antreaplus/test/bench/procstat"
)

const namespace = "bench"

type settings struct {
	members     []int
	supervisors int
	services    int
	interval    time.Duration
	base        int
	logs        string
	// steady is how long the federation is left idle, its changes of
	// leader counted, before the exports.
	steady time.Duration
	// scopeServices and scopeRounds size the scope-change measurement (0: none).
	scopeServices, scopeRounds int
	// light runs light members (pkg/sandbox/light.go).
	light bool
	// idle is how long the cost at idle is sampled (0: not).
	idle time.Duration
	// failover: kill -9 the manager leading the most members, once.
	failover bool
	// scaleJSON is where scale.json goes (make bench-scale).
	scaleJSON string
	// managerArgs are extra flags of every federation manager.
	managerArgs []string
	// managerNice, when not zero, runs every federation manager at that
	// niceness (nice(1)): the CPU share a manager gets on its own machine,
	// or from its CPU request, against 30 members' control planes packed
	// onto this one.
	managerNice int
	// profiles, when set, is where each manager's heap profile goes after
	// the idle sampling (and its CPU profile over the idle-cost period):
	// where a member's memory goes.
	profiles string
}

func main() {
	var s settings
	members := flag.String("members", "3,10", "member counts to measure, comma-separated")
	flag.IntVar(&s.supervisors, "supervisors", 2, "supervisors of each federation")
	flag.IntVar(&s.services, "services", 100, "Services exported per mode")
	flag.DurationVar(&s.interval, "interval", 100*time.Millisecond, "time between exports of the steady mode")
	flag.IntVar(&s.base, "api-port-base", 12443, "API server port of member-1")
	flag.DurationVar(&s.steady, "steady", time.Minute, "idle time, before the exports, over which changes of leader are counted (0 skips)")
	flag.IntVar(&s.scopeServices, "scope-services", 20, "Services of the scope-change measurement (0 skips it)")
	flag.IntVar(&s.scopeRounds, "scope-rounds", 5, "rounds of the scope-change measurement: the last member labelled in and out, Services exported and unexported")
	flag.BoolVar(&s.light, "light", false, "light members: etcd and kube-apiserver only (docs/scale.md)")
	flag.DurationVar(&s.idle, "idle-cost", 0, "after the exports, sample the supervisors' cost and the requests each member receives at idle for this long (0 skips)")
	flag.BoolVar(&s.failover, "failover", false, "at the end, kill -9 the manager leading the most members and time until all are led again")
	flag.StringVar(&s.scaleJSON, "scale-json", "", "write the scale figures (members, p99_ms, baseline_ratio, failover_s, leadership_changes, supervisor_rss_mib_per_member, ...) to this file; one member count only")
	flag.Func("manager-arg", "extra flag for every federation manager (repeatable), e.g. -manager-arg=--lease-duration=4s", func(v string) error {
		s.managerArgs = append(s.managerArgs, v)
		return nil
	})
	flag.IntVar(&s.managerNice, "manager-nice", 0, "run every federation manager at this niceness (e.g. -10: a higher CPU priority than the members' control planes); 0: as every other process")
	flag.StringVar(&s.profiles, "profiles", "", "serve every manager's /debug/pprof and write its heap profile (and CPU profile over -idle-cost) into this directory")
	flag.StringVar(&s.logs, "logs", "", "copy the managers', member controllers' and DNS servers' logs into this directory")
	out := flag.String("json", "", "write the figures as JSON to this file")
	flag.Parse()
	for _, m := range strings.Split(*members, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(m))
		if err != nil || n < 3 {
			fmt.Fprintf(os.Stderr, "servicesbench: -members wants counts of at least 3, not %q\n", m)
			os.Exit(2)
		}
		s.members = append(s.members, n)
	}
	if s.scaleJSON != "" && len(s.members) != 1 {
		fmt.Fprintln(os.Stderr, "servicesbench: -scale-json measures one federation: give one -members count")
		os.Exit(2)
	}
	if err := run(s, *out); err != nil {
		fmt.Fprintln(os.Stderr, "servicesbench:", err)
		os.Exit(1)
	}
}

func run(s settings, out string) error {
	var figures []benchtable.Figure
	for _, n := range s.members {
		f, err := measureFederation(context.Background(), s, n)
		if err != nil {
			return fmt.Errorf("%d members: %w", n, err)
		}
		figures = append(figures, f...)
	}
	benchtable.Print(os.Stdout, fmt.Sprintf("federated Service convergence (%d Services, %d supervisors)", s.services, s.supervisors), figures)
	return benchtable.WriteJSON(out, "services-convergence", map[string]any{
		"members": s.members, "supervisors": s.supervisors, "services": s.services, "interval": s.interval.String(), "light": s.light, "managerArgs": s.managerArgs, "managerNice": s.managerNice,
	}, figures)
}

// member is one sandbox cluster as the bench sees it.
type member struct {
	name string
	c    client.WithWatch
	cs   kubernetes.Interface
	dns  string
}

func measureFederation(ctx context.Context, s settings, n int) ([]benchtable.Figure, error) {
	tools := toolchain.Toolchain{Dir: toolchain.DefaultDir()}
	if missing := tools.Missing(toolchain.SandboxTools()...); len(missing) > 0 {
		return nil, fmt.Errorf("tools %v missing: run 'make tools'", missing)
	}
	dir, err := os.MkdirTemp("", "servicesbench-")
	if err != nil {
		return nil, err
	}
	sb := sandbox.New(sandbox.Options{Dir: dir, APIPortBase: s.base, NodesPerCluster: 2, Tools: &tools, Progress: os.Stderr, Light: s.light})
	defer func() {
		if s.logs != "" {
			dst := filepath.Join(s.logs, fmt.Sprintf("%d-members", n))
			if err := os.MkdirAll(dst, 0o755); err == nil {
				_ = exec.Command("cp", "-r", sb.ManagerDir(), sb.MemberDir(), dst).Run()
				fmt.Fprintf(os.Stderr, "servicesbench: logs in %s\n", dst)
			}
		}
		_ = sb.Down(context.Background())
	}()
	st, err := sb.Up(ctx, n)
	if err != nil {
		return nil, err
	}
	var opts sandbox.MemberServicesOptions
	mgr, err := sb.FindBinary(ctx, "federation-manager")
	if err != nil {
		return nil, err
	}
	if s.managerNice != 0 {
		if mgr, err = niced(mgr, s.managerNice); err != nil {
			return nil, err
		}
	}
	if opts.MemberController, err = sb.FindBinary(ctx, "member-controller"); err != nil {
		return nil, err
	}
	if opts.CoreDNS, err = sb.FindBinary(ctx, "coredns"); err != nil {
		return nil, err
	}
	// Each manager serves its metrics (where its Lease writes' time goes).
	var supervisors []string
	for _, p := range st.Clusters[:s.supervisors] {
		supervisors = append(supervisors, p.Name)
	}
	metricsAddrs, err := managerAddrs(supervisors)
	if err != nil {
		return nil, err
	}
	pprofAddrs := map[string]string{}
	if s.profiles != "" {
		if pprofAddrs, err = managerAddrs(supervisors); err != nil {
			return nil, err
		}
	}
	metricsArg := func(sup string) []string {
		args := []string{"--metrics-bind-address=" + metricsAddrs[sup]}
		if a := pprofAddrs[sup]; a != "" {
			args = append(args, "--pprof-bind-address="+a)
		}
		return args
	}
	if err := sb.Federate(ctx, sandbox.FederationOptions{FederationID: "bench", Supervisors: s.supervisors, ManagerBinary: mgr,
		ManagerArgs: s.managerArgs, ManagerArgsFor: metricsArg}); err != nil {
		return nil, err
	}
	if err := sb.StartMemberServices(ctx, opts); err != nil {
		return nil, err
	}
	sch, err := scheme.New()
	if err != nil {
		return nil, err
	}
	var members []member
	for _, p := range st.Clusters {
		cfg, err := sb.RESTConfig(p.Name)
		if err != nil {
			return nil, err
		}
		cfg.QPS, cfg.Burst = 200, 400
		c, err := client.NewWithWatch(cfg, client.Options{Scheme: sch})
		if err != nil {
			return nil, err
		}
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		members = append(members, member{name: p.Name, c: c, cs: cs, dns: p.DNS.Endpoint()})
	}
	if err := waitLed(ctx, members, 2*time.Minute); err != nil {
		return nil, err
	}
	for _, m := range members {
		if err := m.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
			return nil, fmt.Errorf("namespace in %s: %w", m.name, err)
		}
	}
	var figures []benchtable.Figure
	scale := scaleResult{Members: n, Supervisors: s.supervisors, Light: s.light}
	// Hand-overs to the preferred supervisors (after their 10 s hold-down)
	// are changes of leader too, but wanted: let them end before anything
	// counts changes. (Without this wait, the first mode's "changes of
	// leader" at 10 members were these hand-overs.)
	time.Sleep(15 * time.Second)
	if s.steady > 0 {
		fmt.Fprintf(os.Stderr, "servicesbench: %d members federated, every member led; idle for %s\n", n, s.steady)
		changes, load, err := steadyRun(ctx, members, s.steady)
		if err != nil {
			return nil, err
		}
		scale.LeadershipChanges, scale.SteadyS, scale.LoadAverageMax = int(changes), s.steady.Seconds(), load
		figures = append(figures,
			benchtable.Figure{Name: fmt.Sprintf("%d members: changes of leader, idle %s", n, s.steady), Unit: "changes", Median: changes, Min: changes, Max: changes},
			benchtable.Figure{Name: "  highest load average meanwhile (1 min)", Unit: "load", Median: load, Min: load, Max: load})
	}
	fmt.Fprintf(os.Stderr, "servicesbench: %d members federated, every member led; exporting\n", n)
	churn, err := churnCost(ctx, sb, members)
	if err != nil {
		return nil, err
	}
	for _, mode := range []struct {
		name     string
		prefix   string
		interval time.Duration
	}{{fmt.Sprintf("1 per %s", s.interval), "steady", s.interval}, {"all at once", "burst", 0}} {
		before, err := terms(ctx, members)
		if err != nil {
			return nil, err
		}
		renewalsBefore, err := takeRenewalSnapshot(ctx, members, metricsAddrs)
		if err != nil {
			return nil, err
		}
		conv, base, err := measure(ctx, members, mode.prefix, s.services, mode.interval)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", mode.name, err)
		}
		renewalsAfter, err := takeRenewalSnapshot(ctx, members, metricsAddrs)
		if err != nil {
			return nil, err
		}
		changes, err := termChanges(ctx, members, before)
		if err != nil {
			return nil, err
		}
		label := fmt.Sprintf("%d members, %s", n, mode.name)
		figures = append(figures, benchtable.WithPercentiles(label+": converged everywhere", "ms", conv)...)
		figures = append(figures, benchtable.WithPercentiles("  baseline: export seen by exporter's watch", "ms", base)...)
		r := benchtable.Ratio(benchtable.Percentile(conv, 0.5), benchtable.Percentile(base, 0.5))
		r99 := benchtable.Ratio(benchtable.Percentile(conv, 0.99), benchtable.Percentile(base, 0.99))
		figures = append(figures, benchtable.Figure{Name: "  ratio p50 / baseline p50", Unit: "x", Median: r, Min: r, Max: r},
			benchtable.Figure{Name: "  ratio p99 / baseline p99", Unit: "x", Median: r99, Min: r99, Max: r99},
			benchtable.Figure{Name: "  changes of leader meanwhile", Unit: "changes", Median: changes, Min: changes, Max: changes})
		// Half a retry period (after which a leader renews every round)
		// and the renew period (a renewal that late leaves one more try).
		figures = append(figures, renewalFigures(renewalsBefore, renewalsAfter, []time.Duration{500 * time.Millisecond, 2 * time.Second})...)
		if mode.interval > 0 {
			scale.P50Ms, scale.P99Ms, scale.BaselineRatio = benchtable.Percentile(conv, 0.5), benchtable.Percentile(conv, 0.99), r99
			total := renewalsAfter.phases["total"].sub(renewalsBefore.phases["total"])
			scale.LeaseWriteP99Ms, scale.LeaseWritesOver2s = total.quantile(0.99)*1000, total.above(2)
			scale.MemberLeasePutP99Ms = renewalsAfter.put.sub(renewalsBefore.put).quantile(0.99) * 1000
			scale.MemberEtcdUpdateP99Ms = renewalsAfter.etcd.sub(renewalsBefore.etcd).quantile(0.99) * 1000
		}
	}
	figures = append(figures, churn(2*s.services*n)...)
	if s.scopeServices > 0 && s.scopeRounds > 0 {
		f, err := measureScope(ctx, members, s.supervisors, s.scopeServices, s.scopeRounds)
		if err != nil {
			return nil, fmt.Errorf("scope change: %w", err)
		}
		figures = append(figures, f...)
	}
	if s.idle > 0 {
		fmt.Fprintf(os.Stderr, "servicesbench: sampling the cost at idle for %s\n", s.idle)
		cpu := profileCPU(ctx, pprofAddrs, s.idle, filepath.Join(s.profiles, fmt.Sprintf("%d-members", n)))
		f, err := idleCost(ctx, sb, members, supervisorNames(members, s.supervisors), metricsAddrs, s.idle, &scale)
		if err != nil {
			return nil, fmt.Errorf("cost at idle: %w", err)
		}
		figures = append(figures, f...)
		if err := cpu(); err != nil {
			return nil, err
		}
	}
	if s.profiles != "" {
		if err := profileHeaps(ctx, pprofAddrs, filepath.Join(s.profiles, fmt.Sprintf("%d-members", n))); err != nil {
			return nil, err
		}
	}
	if s.failover {
		took, orphans, err := failover(ctx, sb, members, supervisorNames(members, s.supervisors), mgr, s.managerArgs, metricsArg)
		if err != nil {
			return nil, fmt.Errorf("failover: %w", err)
		}
		scale.FailoverS, scale.Orphans = took.Seconds(), orphans
		figures = append(figures, benchtable.Figure{Name: fmt.Sprintf("%d members: kill -9 of a manager leading %d -> all led again", n, orphans), Unit: "s", Median: took.Seconds(), Min: took.Seconds(), Max: took.Seconds()})
	}
	var rss []float64
	for _, p := range st.Clusters {
		if pid := servicePid(sb, p.Name); pid != 0 {
			rss = append(rss, procstat.RSSMiB(pid))
		}
	}
	figures = append(figures, benchtable.Summarize(fmt.Sprintf("%d members: DNS server RSS (per member)", n), "MiB", rss))
	if s.scaleJSON != "" {
		if err := writeScaleJSON(s.scaleJSON, scale, figures); err != nil {
			return nil, fmt.Errorf("writing %s: %w", s.scaleJSON, err)
		}
	}
	return figures, nil
}

// niced writes a wrapper that runs bin at niceness n (replacing itself:
// the pid is the program's) and returns its path.
func niced(bin string, n int) (string, error) {
	dir, err := os.MkdirTemp("", "servicesbench-nice-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, filepath.Base(bin))
	script := fmt.Sprintf("#!/bin/sh\nexec nice -n %d %s \"$@\"\n", n, strconv.Quote(bin))
	return path, os.WriteFile(path, []byte(script), 0o755)
}

func servicePid(sb *sandbox.Sandbox, cluster string) int {
	svcs, err := sb.Services(context.Background())
	if err != nil {
		return 0
	}
	for _, s := range svcs {
		if s.Cluster == cluster && s.Kind == "dns" {
			return s.Pid
		}
	}
	return 0
}

// terms reads every member's leader Lease term (its leaseTransitions).
func terms(ctx context.Context, members []member) (map[string]int32, error) {
	out := map[string]int32{}
	for _, m := range members {
		l := &coordinationv1.Lease{}
		if err := m.c.Get(ctx, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.LeaderLease}, l); err != nil {
			return nil, fmt.Errorf("the leader Lease of %s: %w", m.name, err)
		}
		if l.Spec.LeaseTransitions != nil {
			out[m.name] = *l.Spec.LeaseTransitions
		}
	}
	return out, nil
}

// termChanges is the number of changes of leader, over every member, since
// the terms before were read; the members that changed are printed.
func termChanges(ctx context.Context, members []member, before map[string]int32) (float64, error) {
	after, err := terms(ctx, members)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, m := range members {
		if d := int(after[m.name] - before[m.name]); d > 0 {
			total += d
			fmt.Fprintf(os.Stderr, "servicesbench: %s changed leader %d time(s)\n", m.name, d)
		}
	}
	return float64(total), nil
}

// waitLed waits until every member's leader Lease has a holder.
func waitLed(ctx context.Context, members []member, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		unled := ""
		for _, m := range members {
			l := &coordinationv1.Lease{}
			if err := m.c.Get(ctx, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.LeaderLease}, l); err != nil || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
				unled = m.name
				break
			}
		}
		if unled == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s has no leader after %s", unled, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
