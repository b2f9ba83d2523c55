// Command cloudbench measures the cloud controller importing a large AWS
// account into a real API server, with the cloud-controller binary as its
// own process and the EC2 emulator (real aws-sdk-go-v2 on the wire) in this
// one:
//
//   - import: time and cloud API calls from a cold controller to 10k VMs
//     and their interfaces stored (target < 30 s), then to their
//     ExternalEntities; API writes per imported object (ideal 1);
//   - steady state: API server writes of a poll where nothing changed
//     (target 0), counted by the API server itself (apiserver_request_total
//     of the cloud.antreaplus.io and crd.antrea.io groups) and by the
//     controller (antreaplus_cloud_controller_api_writes_total);
//   - cost: the controller's memory (RSS) holding 10k VMs.
//
// The baselines, measured in the same run, are one bare inventory read of
// the same account through the same SDK provider, without Kubernetes, and
// the rate at which the API server creates VirtualMachine objects like the
// imported ones with nothing else going on: the import cannot write faster.
//
//	go run ./test/bench/cloudbench -vms 10000 -runs 1 -json _output/bench/cloud.json
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
	vms, vpcs, runs int
	base            int
	interval        time.Duration
	steadyPolls     int
	latency         time.Duration
}

func main() {
	var s settings
	flag.IntVar(&s.vms, "vms", 10000, "VMs in the emulated account")
	flag.IntVar(&s.vpcs, "vpcs", 10, "VPCs the VMs are spread over")
	flag.IntVar(&s.runs, "runs", 1, "cold imports measured, each into a fresh namespace with a fresh controller")
	flag.IntVar(&s.base, "api-port-base", 14443, "API server port of the cluster")
	flag.DurationVar(&s.interval, "poll-interval", 5*time.Second, "poll interval of the controller (--poll-interval-override)")
	flag.IntVar(&s.steadyPolls, "steady-polls", 3, "polls with nothing changed whose writes are counted")
	flag.DurationVar(&s.latency, "cloud-latency", 0, "delay the emulator adds to every call")
	out := flag.String("json", "", "write the figures as JSON to this file")
	flag.Parse()
	if err := run(context.Background(), s, *out); err != nil {
		fmt.Fprintln(os.Stderr, "cloudbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, s settings, out string) error {
	loadBefore := loadAverage()
	env, err := start(ctx, s)
	if err != nil {
		return err
	}
	defer env.down()
	var r results
	for i := range s.runs {
		if err := env.measure(ctx, s, i, &r); err != nil {
			return err
		}
	}
	figures := r.figures(s)
	benchtable.Print(os.Stdout, fmt.Sprintf("cloud inventory (%d VMs in %d VPCs, poll every %s)", s.vms, s.vpcs, s.interval), figures)
	loadAfter := loadAverage()
	fmt.Printf("targets: import of %d VMs < 30 s; writes of a poll where nothing changed: 0\n", s.vms)
	fmt.Printf("machine: %d CPUs, 1-minute load average %s before and %s after: the figures scale with what else runs\n",
		runtime.NumCPU(), loadBefore, loadAfter)
	return benchtable.WriteJSON(out, "cloud", map[string]any{
		"vms": s.vms, "vpcs": s.vpcs, "runs": s.runs, "pollInterval": s.interval.String(),
		"steadyPolls": s.steadyPolls, "cloudLatency": s.latency.String(),
		"cpus": runtime.NumCPU(), "loadAverageBefore": loadBefore, "loadAverageAfter": loadAfter,
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

// results are the measurements of every run.
type results struct {
	baseline, floor, importRate                                   []float64
	importVMs, importAll, importCalls, writesPerObject, importCPU []float64
	steadyServer, steadyController, rss, heap                     []float64
}

func (r *results) figures(s settings) []benchtable.Figure {
	return []benchtable.Figure{
		benchtable.Summarize("bare inventory read through the SDK (baseline)", "s", r.baseline),
		benchtable.Summarize(fmt.Sprintf("cold import: %d VMs and their NICs stored", s.vms), "s", r.importVMs),
		benchtable.Summarize("ratio import / bare read", "x", benchtable.Ratios(r.importVMs, r.baseline)),
		benchtable.Summarize(fmt.Sprintf("API server floor: VirtualMachine creates, %d at a time (baseline)", floorWorkers), "writes/s", r.floor),
		benchtable.Summarize("import write rate (VMs, NICs and ExternalEntities)", "writes/s", r.importRate),
		benchtable.Summarize("ratio import write rate / floor", "x", benchtable.Ratios(r.importRate, r.floor)),
		benchtable.Summarize("cold import: and every ExternalEntity", "s", r.importAll),
		benchtable.Summarize("cloud API calls of the import", "calls", r.importCalls),
		benchtable.Summarize("controller CPU time spent on the import", "s", r.importCPU),
		benchtable.Summarize("API writes per imported object (ideal 1)", "writes", r.writesPerObject),
		benchtable.Summarize("API server writes per poll, nothing changed (target 0)", "writes", r.steadyServer),
		benchtable.Summarize("controller writes per poll, nothing changed (target 0)", "writes", r.steadyController),
		benchtable.Summarize(fmt.Sprintf("controller memory at %d VMs (RSS)", s.vms), "MiB", r.rss),
		benchtable.Summarize(fmt.Sprintf("controller Go heap in use at %d VMs", s.vms), "MiB", r.heap),
	}
}
