// Command agentlessbench measures the cloud API cost of agentless
// enforcement: 1k Antrea NetworkPolicies realised as security groups on 1k
// agentless VMs, in process, through the real pure pipeline and the real
// cloud SDKs against the AWS and Azure emulators (no Kubernetes):
//
//	provider.Inventory → inventory.Desired → externalentity.ForNetworkInterface
//	→ policycompiler → wire.NewEndpoint / View.Apply → placement
//	→ sgtranslate.Translate → provider.SyncSecurityGroups, 4 VPCs at a time
//
// For each cloud it reports the calls (reads and writes) and time of the
// initial realisation, of a resync with nothing changed (target 0 writes)
// and of one policy changed (a port added); the translation's time beside
// the sync's; what the cloud cannot hold (an oversized AWS group is
// reported, not dropped); and, as the baseline measured in the same run,
// the read floor of a round through the bare SDK: the two describes of
// each VPC's managed groups and interfaces (EC2), or one listing of the
// subscription's ASGs, NSGs and interfaces (ARM lists per subscription
// only).
//
//	go run ./test/bench/agentlessbench -vms 1000 -policies 1000 -json _output/bench/agentless.json
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
	vms, policies, vpcs, runs int
	repeats                   int
	clouds                    string
	azurePoll                 time.Duration
}

// apps is the number of applications, vmsPerApp VMs each.
func (s settings) apps() int { return max(1, s.vms/vmsPerApp) }

func main() {
	var s settings
	flag.IntVar(&s.vms, "vms", 1000, "agentless VMs per cloud, one network interface each")
	flag.IntVar(&s.policies, "policies", 1000, "Antrea NetworkPolicies per cloud")
	flag.IntVar(&s.vpcs, "vpcs", 4, "VPCs (VNets) the VMs are spread over")
	flag.IntVar(&s.runs, "runs", 1, "runs, each on fresh emulators")
	flag.IntVar(&s.repeats, "repeats", 3, "resyncs and baseline reads per run, in turn; the fastest of each is kept")
	flag.StringVar(&s.clouds, "clouds", "aws,azure", "clouds to measure")
	flag.DurationVar(&s.azurePoll, "azure-poll", 0, "PollFrequency of the Azure provider (0: its default)")
	out := flag.String("json", "", "write the figures as JSON to this file")
	flag.Parse()
	if err := run(context.Background(), s, *out); err != nil {
		fmt.Fprintln(os.Stderr, "agentlessbench:", err)
		os.Exit(1)
	}
}

var cloudMakers = map[string]func(settings) (*cloud, error){"aws": newAWS, "azure": newAzure}

func run(ctx context.Context, s settings, out string) error {
	if s.vms < 1 || s.policies < 1 || s.vpcs < 1 || s.runs < 1 || s.repeats < 1 {
		return fmt.Errorf("-vms, -policies, -vpcs, -runs and -repeats must be at least 1")
	}
	loadBefore := loadAverage()
	var figures []benchtable.Figure
	for _, name := range strings.Split(s.clouds, ",") {
		mk, ok := cloudMakers[name]
		if !ok {
			return fmt.Errorf("unknown cloud %q (aws, azure)", name)
		}
		var samples []sample
		for i := range s.runs {
			m, err := measure(ctx, s, mk)
			if err != nil {
				return err
			}
			logSample(name, i, m)
			samples = append(samples, m)
		}
		f := cloudFigures(name, samples)
		benchtable.Print(os.Stdout, fmt.Sprintf("%s: %d policies on %d agentless VMs in %d VPCs", name, s.policies, s.vms, s.vpcs), f)
		figures = append(figures, f...)
	}
	loadAfter := loadAverage()
	fmt.Printf("targets: writes of a resync with nothing changed: 0; every part the cloud cannot hold reported (%d-peer rule on one VM)\n", partnerPeers)
	fmt.Printf("machine: %d CPUs, 1-minute load average %s before and %s after: the times scale with what else runs\n",
		runtime.NumCPU(), loadBefore, loadAfter)
	return benchtable.WriteJSON(out, "agentless", map[string]any{
		"vms": s.vms, "policies": s.policies, "vpcs": s.vpcs, "runs": s.runs, "repeats": s.repeats, "clouds": s.clouds,
		"syncConcurrency": syncConcurrency, "cpus": runtime.NumCPU(), "loadAverageBefore": loadBefore, "loadAverageAfter": loadAfter,
	}, figures)
}

// loadAverage is the 1-minute load average of the machine.
func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(raw))[0]
}

// cloudFigures summarises the runs of one cloud.
func cloudFigures(name string, samples []sample) []benchtable.Figure {
	col := func(get func(sample) float64) []float64 {
		out := make([]float64, len(samples))
		for i, m := range samples {
			out[i] = get(m)
		}
		return out
	}
	fig := func(what, unit string, get func(sample) float64) benchtable.Figure {
		return benchtable.Summarize(name+": "+what, unit, col(get))
	}
	ratio := func(what string, a, b func(sample) float64) benchtable.Figure {
		return benchtable.Summarize(name+": "+what, "x", benchtable.Ratios(col(a), col(b)))
	}
	ms := func(get func(sample) float64) func(sample) float64 {
		return func(m sample) float64 { return 1000 * get(m) }
	}
	calls := func(get func(sample) int) func(sample) float64 {
		return func(m sample) float64 { return float64(get(m)) }
	}
	return []benchtable.Figure{
		fig("enforcement points with rules (managed groups)", "groups", func(m sample) float64 { return m.groups }),
		fig("security group rules in the specs", "rules", func(m sample) float64 { return m.rules }),
		fig("compile (policycompiler, every policy)", "ms", ms(func(m sample) float64 { return m.compile })),
		fig("initial: translate (placement + sgtranslate)", "ms", ms(func(m sample) float64 { return m.translate })),
		fig("initial: sync (SyncSecurityGroups, every VPC)", "s", func(m sample) float64 { return m.initialSync }),
		ratio("initial: sync / translate", func(m sample) float64 { return m.initialSync }, func(m sample) float64 { return m.translate }),
		fig("initial: cloud reads", "calls", calls(func(m sample) int { return m.initial.reads })),
		fig("initial: of which lists/describes", "calls", calls(func(m sample) int { return m.initial.lists })),
		fig("initial: cloud writes", "calls", calls(func(m sample) int { return m.initial.writes })),
		fig("initial: writes per managed group", "calls", func(m sample) float64 { return float64(m.initial.writes) / m.groups }),
		fig("baseline: bare SDK read floor of a round (fastest)", "ms", ms(func(m sample) float64 { return m.bareTime })),
		fig("baseline: bare SDK read floor, calls", "calls", calls(func(m sample) int { return m.bare.total() })),
		fig("resync, nothing changed: translate (fastest)", "ms", ms(func(m sample) float64 { return m.resyncTranslate })),
		fig("resync, nothing changed: sync (fastest)", "ms", ms(func(m sample) float64 { return m.resyncSync })),
		ratio("resync sync / baseline read", func(m sample) float64 { return m.resyncSync }, func(m sample) float64 { return m.bareTime }),
		fig("resync, nothing changed: cloud reads", "calls", calls(func(m sample) int { return m.resync.reads })),
		ratio("resync reads / baseline calls", calls(func(m sample) int { return m.resync.reads }), calls(func(m sample) int { return m.bare.total() })),
		fig("resync, nothing changed: writes (target 0)", "calls", calls(func(m sample) int { return m.resyncMaxWrites })),
		fig("one policy changed: endpoints recompiled", "endpoints", func(m sample) float64 { return m.changedEndpoints }),
		fig("one policy changed: cloud reads", "calls", calls(func(m sample) int { return m.change.reads })),
		fig("one policy changed: cloud writes", "calls", calls(func(m sample) int { return m.change.writes })),
		fig("one policy changed: compile, translate, sync", "ms", ms(func(m sample) float64 { return m.changeTime })),
		fig("refused by the cloud (quota), reported Unrealized", "parts", func(m sample) float64 { return m.refused }),
		fig("translation findings: Unrealized", "findings", func(m sample) float64 { return m.unrealized }),
		fig("translation findings: Approximated (Reject as Drop)", "findings", func(m sample) float64 { return m.approximated }),
	}
}
