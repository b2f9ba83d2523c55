// Command tracebench measures `antreaplus trace` (docs/trace.md).
//
//   - Computed trace at scale: 3 real clusters holding, between them, 100k
//     ExternalEntities (VMs) and 10k Antrea NetworkPolicies (each applied
//     to an app's VMs, allowing a port from a tier's VMs and dropping the
//     rest of it). Each run traces one flow between two VMs (half within a
//     member, half across two) exactly as the command does: the members
//     read concurrently (gather.Read), the source and destination resolved,
//     the policies of their members compiled as the policy controllers
//     compile them (World.Compile) and the path decided (trace.Compute).
//     The time is shown whole and by stage: listing, compiling, deciding. The
//     baseline, measured in the same run before the population grows, is
//     the same trace in the same clusters holding 300 VMs and 30 policies.
//
//   - The command as an operator runs it, at that scale, with member-1's
//     and member-2's policy controllers running: `antreaplus trace -o json`
//     (reads what the ends need, asks the members' controllers through
//     Trace objects) against `antreaplus trace --local` for the same flows,
//     run after them (the baseline); both must agree on verdict and rule. And
//     Trace objects alone, create to Completed.
//
//   - Live trace (-live, needs root): the demo's federation (two members,
//     the local clouds, VM agents in network namespaces, member-2's
//     federated policy on azure-dev-build-2); `antreaplus trace --live`
//     timed from the command to its verdict for a flow the destination's
//     agent allows and one it drops, each against the computed trace of
//     the same flow in the same run.
//
//   - Rule counters (-counters, needs root): the kernel's cost of the
//     counters the VM agent puts on every rule, under a stream of new TCP
//     connections through an agent's nftables table of 1,000 rules, against
//     the same table without counters, in the same run and interleaved.
//
//     go run ./test/bench/tracebench -entities 100000 -policies 10000 -json _output/bench/trace.json
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/toolchain"
	"antreaplus.io/antreaplus/pkg/trace"
	"antreaplus.io/antreaplus/pkg/trace/gather"
	"antreaplus.io/antreaplus/test/bench/benchtable"
)

const members = 3

func main() {
	entities := flag.Int("entities", 100000, "ExternalEntities in all, spread evenly over the members")
	policies := flag.Int("policies", 10000, "Antrea NetworkPolicies in all, spread evenly over the members")
	traces := flag.Int("traces", 30, "traces measured at each size")
	counters := flag.Bool("counters", false, "also measure the rule counters' cost under a stream of connections (needs root)")
	connRate := flag.Int("conn-rate", 10000, "with -counters, new TCP connections per second offered")
	connFor := flag.Duration("conn-for", 5*time.Second, "with -counters, length of each measured stream")
	connRuns := flag.Int("conn-runs", 5, "with -counters, streams measured with counters and without each")
	computed := flag.Bool("computed", true, "measure the computed trace at scale (starts 3 clusters)")
	quick := flag.Bool("quick", false, "with -computed, measure the command asking the members only: no in-process or --local baselines (not for make bench: no same-run baseline)")
	live := flag.Bool("live", false, "also time live traces in the demo's federation (needs root and the programs in $PATH)")
	liveRuns := flag.Int("live-runs", 5, "with -live, live traces of each flow")
	liveTimeout := flag.Int("live-timeout", 10, "with -live, the --live-timeout of each live trace (what a dropped flow waits)")
	jsonPath := flag.String("json", "", "write the figures as JSON to this file")
	flag.Parse()
	if *entities < 3000 || *policies < 300 || *traces < 2 {
		fmt.Fprintln(os.Stderr, "tracebench: want at least 3000 entities, 300 policies and 2 traces")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var figures []benchtable.Figure
	settings := map[string]any{"members": members, "entities": *entities, "policies": *policies, "traces": *traces}
	if *computed {
		f, err := benchComputed(ctx, *entities/members, *policies/members, *traces, *quick)
		if err != nil {
			fail(err)
		}
		figures = append(figures, f...)
	}
	if *live {
		f, err := benchLive(ctx, *liveRuns, *liveTimeout)
		if err != nil {
			fail(err)
		}
		figures = append(figures, f...)
		settings["liveRuns"], settings["liveTimeout"] = *liveRuns, *liveTimeout
	}
	if *counters {
		f, err := benchCounters(ctx, *connRate, *connFor, *connRuns)
		if err != nil {
			fail(err)
		}
		figures = append(figures, f...)
		settings["connRate"], settings["connFor"], settings["connRuns"] = *connRate, connFor.String(), *connRuns
	}
	benchtable.Print(os.Stdout, "antreaplus trace", figures)
	if err := benchtable.WriteJSON(*jsonPath, "trace", settings, figures); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "tracebench:", err)
	os.Exit(1)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[tracebench] "+format+"\n", args...)
}

// benchComputed starts the clusters, measures the baseline, grows the
// population to perMember entities and policies per member, and measures
// again.
func benchComputed(ctx context.Context, perMember, policiesPerMember, traces int, quick bool) ([]benchtable.Figure, error) {
	tools := toolchain.Toolchain{Dir: toolchain.DefaultDir()}
	if missing := tools.Missing(toolchain.SandboxTools()...); len(missing) > 0 {
		return nil, fmt.Errorf("tools %v missing from %s: run 'make tools'", missing, tools.Dir)
	}
	base, err := sandbox.FreeBase(members)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "tracebench-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	sb := sandbox.New(sandbox.Options{Dir: filepath.Join(dir, "sandbox"), APIPortBase: base, NodesPerCluster: 1, Tools: &tools, Progress: os.Stderr})
	defer func() { _ = sb.Down(context.Background()) }()
	st, err := sb.Up(ctx, members)
	if err != nil {
		return nil, err
	}
	sch, err := scheme.New()
	if err != nil {
		return nil, err
	}
	var clusters []membership.Cluster
	var clients []client.Client
	for _, p := range st.Clusters {
		cfg, err := sb.RESTConfig(p.Name)
		if err != nil {
			return nil, err
		}
		c, err := client.New(rest.CopyConfig(cfg), client.Options{Scheme: sch})
		if err != nil {
			return nil, err
		}
		clients = append(clients, c)
		// The command's own client settings: gather sets what it needs.
		cfg.QPS, cfg.Burst = 0, 0
		clusters = append(clusters, membership.Cluster{Name: p.Name, Config: cfg})
	}
	const smallEntities, smallPolicies = 100, 10
	if err := populate(ctx, clients, 0, smallEntities, 0, smallPolicies); err != nil {
		return nil, err
	}
	small, err := measure(ctx, clusters, smallEntities, traces)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	started := time.Now()
	logf("creating %d ExternalEntities and %d NetworkPolicies in %d members ...", perMember*members, policiesPerMember*members, members)
	if err := populate(ctx, clients, smallEntities, perMember, smallPolicies, policiesPerMember); err != nil {
		return nil, err
	}
	logf("created in %s", time.Since(started).Round(time.Second))
	large := &timings{}
	if !quick {
		if large, err = measure(ctx, clusters, perMember, traces); err != nil {
			return nil, err
		}
	}
	watcher, err := client.NewWithWatch(rest.CopyConfig(clusters[1].Config), client.Options{Scheme: sch})
	if err != nil {
		return nil, err
	}
	// The policy controllers of the members on the flows' way.
	for m := 1; m <= 2; m++ {
		c, err := client.NewWithWatch(rest.CopyConfig(clusters[m-1].Config), client.Options{Scheme: sch})
		if err != nil {
			return nil, err
		}
		stop, err := answering(ctx, sb, c, m)
		if err != nil {
			return nil, err
		}
		defer stop()
	}
	objects, err := traceObjects(ctx, clusters, watcher, perMember, traces)
	if err != nil {
		return nil, fmt.Errorf("the Trace objects: %w", err)
	}
	asked, local, stages, err := commandTraces(ctx, sb, perMember, traces, !quick)
	if err != nil {
		return nil, fmt.Errorf("the command: %w", err)
	}
	size := fmt.Sprintf("%.0fk VMs, %.0fk policies", float64(perMember*members)/1000, float64(policiesPerMember*members)/1000)
	figures := []benchtable.Figure{
		benchtable.Summarize(fmt.Sprintf("antreaplus trace, %s in %d members: asks the members", size, members), "ms", asked),
		{Name: "  p99", Unit: "ms", Median: benchtable.Percentile(asked, 0.99), Min: benchtable.Percentile(asked, 0.99), Max: benchtable.Percentile(asked, 0.99)},
		benchtable.Summarize("  of it: reading what the flow's ends need", "ms", stages.read),
		benchtable.Summarize("    of which connecting (clients, the members' identities)", "ms", stages.connect),
		benchtable.Summarize("  of it: the members deciding (Trace objects)", "ms", stages.decide),
		benchtable.Summarize("  of it: the rest (process start, kubeconfig, output)", "ms", stages.rest),
	}
	if quick {
		return append(figures, benchtable.Summarize("Trace object in member-2, create to Completed", "ms", objects)), nil
	}
	return append(figures,
		benchtable.Summarize("  baseline: antreaplus trace --local, the same flows after", "ms", local),
		benchtable.Summarize("  ratio", "x", benchtable.Ratios(asked, local)),
		benchtable.Summarize(fmt.Sprintf("computed here (--local, in process), %s", size), "ms", large.total),
		benchtable.Figure{Name: "  p99", Unit: "ms", Median: benchtable.Percentile(large.total, 0.99), Min: benchtable.Percentile(large.total, 0.99), Max: benchtable.Percentile(large.total, 0.99)},
		benchtable.Summarize("  reading: the members' lists (concurrent)", "ms", large.list),
		benchtable.Summarize("  compiling: the policies of the flow's members", "ms", large.compile),
		benchtable.Summarize("  deciding: resolution and the path", "ms", large.decide),
		benchtable.Summarize("  baseline: 300 VMs, 30 policies, same clusters", "ms", small.total),
		benchtable.Summarize("  ratio", "x", benchtable.Ratios(large.total, small.total)),
		benchtable.Figure{Name: fmt.Sprintf("  verdicts: %d allowed, %d dropped", large.allowed, large.dropped), Unit: "traces"},
		benchtable.Summarize("Trace object in member-2, create to Completed", "ms", objects),
		benchtable.Figure{Name: "  p99", Unit: "ms", Median: benchtable.Percentile(objects, 0.99), Min: benchtable.Percentile(objects, 0.99), Max: benchtable.Percentile(objects, 0.99)},
	), nil
}

// timings are the measured traces of one size.
type timings struct {
	total, list, compile, decide []float64
	allowed, dropped             int
}

// measure traces n flows between random VMs of the first perMember of
// each member, as the command does, and times each.
func measure(ctx context.Context, clusters []membership.Cluster, perMember, n int) (*timings, error) {
	t := &timings{}
	rng := rand.New(rand.NewPCG(1, uint64(perMember)))
	for run := range n {
		from, to := 2, 2
		if run%2 == 1 {
			from = 1 // across members
		}
		i, k := rng.IntN(perMember), rng.IntN(perMember)
		if run%4 < 2 {
			// The source in the tier the destination's policies allow.
			i = i - i%tiers + k%tiers
			if i >= perMember {
				i -= tiers
			}
		}
		src := gather.Spec{Kind: gather.KindVM, Member: clusters[from-1].Name, Name: vmName(from, i)}
		dst := gather.Spec{Kind: gather.KindVM, Member: clusters[to-1].Name, Name: vmName(to, k)}
		port := int32(8000 + k%ports)
		start := time.Now()
		w := gather.Read(ctx, clusters, time.Minute)
		read := time.Since(start)
		var list time.Duration
		for _, m := range w.Members {
			if m.Err != nil || len(m.Partial) > 0 {
				return nil, fmt.Errorf("%s: not fully read: %w %v", m.Context, m.Err, m.Partial)
			}
			list = max(list, m.Listed)
		}
		source, _, err := w.Workload(src, "", "")
		if err != nil {
			return nil, err
		}
		dest, resolved, err := w.Workload(dst, "", source.Member)
		if err != nil {
			return nil, err
		}
		if err := w.Compile(&source, &dest); err != nil {
			return nil, err
		}
		res := trace.Compute(trace.Query{Source: source, Destination: dest, Protocol: policyrules.ProtocolTCP, Port: port,
			Resolved: resolved, Flat: w.Flat, Federated: w.Federated()})
		total := time.Since(start)
		var compile time.Duration
		for _, m := range w.Members {
			compile += m.Compiled
		}
		switch res.Verdict {
		case trace.Allowed:
			t.allowed++
		case trace.Dropped:
			t.dropped++
		default:
			return nil, fmt.Errorf("trace %s -> %s:%d: verdict %q", src.Name, dst.Name, port, res.Verdict)
		}
		t.total = append(t.total, ms(total))
		t.list = append(t.list, ms(list))
		t.compile = append(t.compile, ms(compile))
		t.decide = append(t.decide, ms(total-read-compile))
	}
	logf("%d traces over %d VMs per member: median %.0f ms (%d allowed, %d dropped)", n, perMember,
		benchtable.Summarize("", "", t.total).Median, t.allowed, t.dropped)
	return t, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
