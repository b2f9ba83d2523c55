// Command tenancybench measures how the replicas of one cloud-controller
// instance share many tenants, with the cloud-controller program as its
// own processes against one real cluster and the EC2 emulator (real
// aws-sdk-go-v2 on the wire) in this process, one access key per tenant,
// whose poll stats (package pollstats) count each replica's calls and
// polls per account:
//
//   - run A, the baseline: one replica alone manages every tenant; cloud
//     calls per tenant per poll interval, and per poll;
//   - run B: three replicas of the same instance, started together:
//     balance (the most tenants one replica holds, from the claim Leases,
//     vs the ideal ceil(tenants/replicas)), cloud calls per tenant per poll
//     interval and per poll (vs run A: sharing adds no call, ideal ratio
//     1.00), overlaps (a call of one replica for an account while another
//     replica's poll window of it is open: target 0) during the scale-out
//     and in steady polls;
//   - take-over: the replica with the most tenants killed with SIGKILL;
//     time until each of its tenants is claimed by another (median over its
//     tenants, and the longest), overlaps around it, VMs deleted (target 0).
//
// Missed targets are printed (and the controllers' logs kept), not failed:
// the integration tests (test/integration/tenancy) assert.
//
//	go run ./test/bench/tenancybench -json _output/bench/tenancy.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"antreaplus.io/antreaplus/test/bench/benchtable"
)

type settings struct {
	tenants, vms, replicas, polls int
	base                          int
	interval, lease, renew, gap   time.Duration
}

func main() {
	var s settings
	flag.IntVar(&s.tenants, "tenants", 100, "tenant Namespaces, each with its own account (access key) and selector")
	flag.IntVar(&s.vms, "vms", 3, "VMs of each tenant")
	flag.IntVar(&s.replicas, "replicas", 3, "replicas of the instance in run B")
	flag.IntVar(&s.polls, "polls", 3, "poll intervals over which calls are counted, in each run")
	flag.IntVar(&s.base, "api-port-base", 0, "API server port of the bench's cluster (0: any free range)")
	flag.DurationVar(&s.interval, "poll-interval", 5*time.Second, "poll interval of the controllers (--poll-interval-override)")
	flag.DurationVar(&s.lease, "lease-duration", 15*time.Second, "the claims' duration (--tenancy-lease-duration; the chart's default)")
	flag.DurationVar(&s.renew, "renew-period", 5*time.Second, "how often claims are renewed (--tenancy-renew-period; the chart's default)")
	flag.DurationVar(&s.gap, "poll-gap", 500*time.Millisecond, "pause that ends a poll window in the emulator's stats (awsemu PollGap)")
	out := flag.String("json", "", "write the figures as JSON to this file")
	flag.Parse()
	if err := run(context.Background(), s, *out); err != nil {
		fmt.Fprintln(os.Stderr, "tenancybench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, s settings, out string) error {
	loadBefore := loadAverage()
	e, err := start(ctx, s)
	if err != nil {
		return err
	}
	failed := true
	defer func() { e.down(failed) }()
	a, err := e.runAlone(ctx, s)
	if err != nil {
		return err
	}
	b, err := e.runShared(ctx, s)
	if err != nil {
		return err
	}
	ideal := float64((s.tenants + s.replicas - 1) / s.replicas)
	figures := []benchtable.Figure{
		one("A: cloud calls per tenant per poll interval (baseline)", "calls", a.steady.calls),
		one(fmt.Sprintf("B: cloud calls per tenant per poll interval, %d replicas", s.replicas), "calls", b.steady.calls),
		one("ratio B / A (ideal 1.00)", "x", benchtable.Ratio(b.steady.calls, a.steady.calls)),
		one("A: cloud calls per poll of a tenant (baseline)", "calls", a.steady.callsPerPoll()),
		one("B: cloud calls per poll of a tenant", "calls", b.steady.callsPerPoll()),
		one("ratio B / A (ideal 1.00)", "x", benchtable.Ratio(b.steady.callsPerPoll(), a.steady.callsPerPoll())),
		one("A: polls per tenant per poll interval", "polls", a.steady.windows),
		one("B: polls per tenant per poll interval", "polls", b.steady.windows),
		one("B: most replicas calling one account (target 1)", "replicas", float64(b.steady.callers)),
		one("B: overlaps in steady polls (target 0)", "overlaps", float64(b.steady.overlaps.all)),
		one("A: time to every tenant claimed and imported", "s", a.importTime.Seconds()),
		one("B: time to every tenant claimed as planned", "s", b.balanceTime.Seconds()),
		one(fmt.Sprintf("B: most tenants on one replica (ideal %.0f)", ideal), "tenants", b.maxTenants),
		one("ratio most / ideal (ideal 1.00)", "x", b.maxTenants/ideal),
		one("B: overlaps during the scale-out (target 0)", "overlaps", float64(b.scaleOut.all)),
		one("    of accounts two replicas called alternately", "overlaps", float64(b.scaleOut.alternating)),
		one(fmt.Sprintf("take-over after kill -9 of %d tenants, median", b.victimTenants), "s", benchtable.Percentile(b.takeover, 0.5)),
		one("take-over after kill -9, longest", "s", slicesMax(b.takeover)),
		one("overlaps around the take-over (target 0)", "overlaps", float64(b.afterKill.all)),
		one("VMs deleted during the take-over (target 0)", "VMs", float64(b.deleted)),
	}
	benchtable.Print(os.Stdout, fmt.Sprintf("tenancy (%d tenants of %d VMs, poll every %s, claims last %s)", s.tenants, s.vms, s.interval, s.lease), figures)
	loadAfter := loadAverage()
	fmt.Printf("targets: ratios B / A 1.00; most tenants on one replica %.0f; overlaps 0 (a call of one replica while another's poll window of the account, ending %s after its last call, is open); take-over within the claims' duration %s and a round\n",
		ideal, s.gap, s.lease)
	fmt.Printf("machine: %d CPUs, 1-minute load average %s before and %s after: the times scale with what else runs\n",
		runtime.NumCPU(), loadBefore, loadAfter)
	if err := benchtable.WriteJSON(out, "tenancy", map[string]any{
		"tenants": s.tenants, "vms": s.vms, "replicas": s.replicas, "polls": s.polls, "pollInterval": s.interval.String(),
		"leaseDuration": s.lease.String(), "renewPeriod": s.renew.String(), "pollGap": s.gap.String(),
		"cpus": runtime.NumCPU(), "loadAverageBefore": loadBefore, "loadAverageAfter": loadAfter,
	}, figures); err != nil {
		return err
	}
	// Missed targets are reported, not failed: the benchmarks measure
	// (make bench runs them all), the tests assert.
	if n := b.steady.overlaps.all + b.scaleOut.all + b.afterKill.all; n > 0 || b.deleted > 0 || b.steady.callers > 1 {
		fmt.Printf("TARGETS MISSED: %d overlaps (%d of alternating callers; the calls are listed above), %d VMs deleted, up to %d replicas calling one account in steady polls\n",
			n, b.steady.overlaps.alternating+b.scaleOut.alternating+b.afterKill.alternating, b.deleted, b.steady.callers)
		return nil // (the controllers' logs are kept)
	}
	failed = false
	return nil
}

// one is the Figure of a single measurement.
func one(name, unit string, v float64) benchtable.Figure {
	return benchtable.Summarize(name, unit, []float64{v})
}

func slicesMax(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// loadAverage is the 1-minute load average of the machine.
func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(raw))[0]
}
