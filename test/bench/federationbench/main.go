// Command federationbench measures the federation with real clusters and
// real federation manager processes:
//
//   - failover: time from kill -9 of the manager that leads the most members
//     until every member it led is led again, over repeated runs, at 6
//     members and 3 supervisors; the baseline, measured in the same run, is
//     a graceful stop (SIGTERM), where the manager releases its Leases;
//
//   - balance: the most members one supervisor leads after start and after
//     the killed supervisor returns, and how many hand-overs the return took;
//
//   - cost: memory, CPU at idle and TCP connections of one manager leading
//     1 and then 10 members, and what each member led adds.
//
//     go run ./test/bench/federationbench -runs 5 -json _output/bench/federation.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"antreaplus.io/antreaplus/pkg/federation/election"
	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/toolchain"
	"antreaplus.io/antreaplus/test/bench/benchtable"
	"antreaplus.io/antreaplus/test/bench/procstat"
)

type settings struct {
	runs, members, supervisors, scaleMembers int
	base                                     int
	measure                                  time.Duration
}

func main() {
	var s settings
	flag.IntVar(&s.runs, "runs", 5, "failovers measured (each kind)")
	flag.IntVar(&s.members, "members", 6, "members of the failover federation")
	flag.IntVar(&s.supervisors, "supervisors", 3, "supervisors of the failover federation")
	flag.IntVar(&s.scaleMembers, "scale-members", 10, "members led by one manager for the cost figures (0 skips)")
	flag.IntVar(&s.base, "api-port-base", 13443, "API server port of member-1")
	flag.DurationVar(&s.measure, "measure", 30*time.Second, "how long the manager's CPU is sampled")
	out := flag.String("json", "", "write the figures as JSON to this file")
	flag.Parse()
	if err := run(s, *out); err != nil {
		fmt.Fprintln(os.Stderr, "federationbench:", err)
		os.Exit(1)
	}
}

func run(s settings, out string) error {
	ctx := context.Background()
	figures, err := failover(ctx, s)
	if err != nil {
		return err
	}
	if s.scaleMembers > 0 {
		cost, err := managerCost(ctx, s)
		if err != nil {
			return err
		}
		figures = append(figures, cost...)
	}
	cfg := election.DefaultConfig()
	benchtable.Print(os.Stdout, fmt.Sprintf("federation figure (%d members, %d supervisors)", s.members, s.supervisors), figures)
	fmt.Printf("Lease settings: duration %s, renew deadline %s, retry period %s, renew period %s, hand-over hold-down %s\n",
		cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod, cfg.RenewPeriod, cfg.HandoverHoldDown)
	return benchtable.WriteJSON(out, "federation", map[string]any{
		"runs": s.runs, "members": s.members, "supervisors": s.supervisors, "scaleMembers": s.scaleMembers,
		"leaseDuration": cfg.LeaseDuration.String(), "renewDeadline": cfg.RenewDeadline.String(),
		"retryPeriod": cfg.RetryPeriod.String(), "renewPeriod": cfg.RenewPeriod.String(), "handoverHoldDown": cfg.HandoverHoldDown.String(),
	}, figures)
}

// start brings up n clusters federated with k supervisors in a fresh directory.
func start(ctx context.Context, n, k, base int) (*fed, error) {
	tools := toolchain.Toolchain{Dir: toolchain.DefaultDir()}
	if missing := tools.Missing(toolchain.SandboxTools()...); len(missing) > 0 {
		return nil, fmt.Errorf("tools %v missing: run 'make tools'", missing)
	}
	dir, err := os.MkdirTemp("", "federationbench-")
	if err != nil {
		return nil, err
	}
	sb := sandbox.New(sandbox.Options{Dir: dir, APIPortBase: base, NodesPerCluster: 1, Tools: &tools, Progress: os.Stderr})
	if _, err := sb.Up(ctx, n); err != nil {
		_ = sb.Down(ctx)
		return nil, err
	}
	bin, err := sb.FindBinary(ctx, "federation-manager")
	if err != nil {
		_ = sb.Down(ctx)
		return nil, err
	}
	if err := sb.Federate(ctx, sandbox.FederationOptions{FederationID: "bench", Supervisors: k, ManagerBinary: bin}); err != nil {
		_ = sb.Down(ctx)
		return nil, err
	}
	f, err := newFed(sb, n, k, bin)
	if err != nil {
		_ = sb.Down(ctx)
	}
	return f, err
}

func failover(ctx context.Context, s settings) ([]benchtable.Figure, error) {
	f, err := start(ctx, s.members, s.supervisors, s.base)
	if err != nil {
		return nil, err
	}
	defer f.down()
	capacity := (s.members + s.supervisors - 1) / s.supervisors
	if _, err := f.waitBalanced(capacity, 90*time.Second); err != nil {
		return nil, err
	}
	startLoad := f.maxLoad(f.leaders())
	var kill, graceful, returnLoad, handovers, rebalance []float64
	for r := 0; r < s.runs; r++ {
		for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
			took, moved, settle, load, err := f.failoverOnce(sig, capacity)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(os.Stderr, "run %d %s: %d orphans led again in %.2fs; return took %d hand-overs, balanced in %.1fs (max load %d)\n",
				r+1, sig, moved, took.Seconds(), int(load[1]), settle.Seconds(), int(load[0]))
			if sig == syscall.SIGKILL {
				kill = append(kill, took.Seconds())
				returnLoad, handovers, rebalance = append(returnLoad, load[0]), append(handovers, load[1]), append(rebalance, settle.Seconds())
			} else {
				graceful = append(graceful, took.Seconds())
			}
		}
	}
	return []benchtable.Figure{
		benchtable.Summarize("failover after kill -9 (every orphan led again)", "s", kill),
		benchtable.Summarize("failover after SIGTERM, leases released (baseline)", "s", graceful),
		benchtable.Summarize("ratio kill -9 / SIGTERM", "x", benchtable.Ratios(kill, graceful)),
		benchtable.Summarize(fmt.Sprintf("most members led by one supervisor after start (cap %d)", capacity), "members", []float64{float64(startLoad)}),
		benchtable.Summarize("most members led by one supervisor after a return", "members", returnLoad),
		benchtable.Summarize("hand-overs when the killed supervisor returns", "count", handovers),
		benchtable.Summarize("time from return to balance (hold-down included)", "s", rebalance),
	}, nil
}

func managerCost(ctx context.Context, s settings) ([]benchtable.Figure, error) {
	one, err := leadingCost(ctx, s, 1)
	if err != nil {
		return nil, err
	}
	many, err := leadingCost(ctx, s, s.scaleMembers)
	if err != nil {
		return nil, err
	}
	per := func(a, b float64) float64 { return (b - a) / float64(s.scaleMembers-1) }
	figs := append(one.figures(1), many.figures(s.scaleMembers)...)
	if s.scaleMembers > 1 {
		figs = append(figs,
			benchtable.Summarize(fmt.Sprintf("per member led (1 -> %d members): memory", s.scaleMembers), "MiB", []float64{per(one.rssMedian(), many.rssMedian())}),
			benchtable.Summarize(fmt.Sprintf("per member led (1 -> %d members): CPU at idle", s.scaleMembers), "% core", []float64{per(one.cpuPct, many.cpuPct)}),
			benchtable.Summarize(fmt.Sprintf("per member led (1 -> %d members): TCP connections", s.scaleMembers), "conns", []float64{per(float64(one.conns), float64(many.conns))}))
	}
	return figs, nil
}

// cost is what one manager used while leading a federation at idle.
type cost struct {
	rss    []float64
	cpuPct float64
	conns  int
}

func (c cost) rssMedian() float64 { return benchtable.Summarize("", "", c.rss).Median }

func (c cost) figures(members int) []benchtable.Figure {
	return []benchtable.Figure{
		benchtable.Summarize(fmt.Sprintf("manager memory leading %d members (RSS)", members), "MiB", c.rss),
		benchtable.Summarize(fmt.Sprintf("manager CPU leading %d members, idle", members), "% core", []float64{c.cpuPct}),
		benchtable.Summarize(fmt.Sprintf("manager TCP connections leading %d members", members), "conns", []float64{float64(c.conns)}),
	}
}

// leadingCost starts a federation of members with one supervisor, waits
// until it leads them all, and samples its manager at idle.
func leadingCost(ctx context.Context, s settings, members int) (cost, error) {
	f, err := start(ctx, members, 1, s.base+1000)
	if err != nil {
		return cost{}, err
	}
	defer f.down()
	if _, err := f.waitBalanced(members, 90*time.Second); err != nil {
		return cost{}, err
	}
	pid := f.sb.ManagerPid(f.supervisors[0])
	cpu0, err := procstat.CPUSeconds(pid)
	if err != nil {
		return cost{}, err
	}
	var c cost
	t0 := time.Now()
	for time.Since(t0) < s.measure {
		time.Sleep(time.Second)
		c.rss = append(c.rss, procstat.RSSMiB(pid))
	}
	cpu1, err := procstat.CPUSeconds(pid)
	if err != nil {
		return cost{}, err
	}
	c.cpuPct = 100 * (cpu1 - cpu0) / time.Since(t0).Seconds()
	if c.conns, err = procstat.TCPConnections(pid); err != nil {
		return cost{}, err
	}
	return c, nil
}

// logPath is where a run leaves the manager logs for a look afterwards.
func logPath(sb *sandbox.Sandbox) string { return filepath.Join(sb.Dir(), "managers") }
