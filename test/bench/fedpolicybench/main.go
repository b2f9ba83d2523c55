// Command fedpolicybench measures federated NetworkPolicies end to end, with
// 3 real clusters federated by real federation managers (in member-1 and
// member-2), a member controller in every member, member-2's policy
// controller and ONE real VM agent (cmd/vm-agent) in a network namespace,
// playing an agented VM of member-2 with its own nftables. It needs root.
//
//   - Remote change to enforcement (the headline): member-1 exports plain
//     ExternalEntities (EntityExport); in member-2 a FederatedNetworkPolicy
//     applied to the VM allows ingress from them (scope ClusterSet). Each
//     run moves ONE remote entity to a new IP and times until the agent has
//     applied a rule with the new address (its state file, written after
//     each successful nftables apply, polled every 2 ms). Also a new
//     exported entity, and a federated Service endpoint change (a
//     flat-network export of member-1, its EndpointSlice changed; the
//     policy's egress toServices scope ClusterSet). The baseline, measured
//     in the same run and interleaved with the remote runs, is the same
//     change made locally: an ExternalEntity of member-2 selected by an
//     ordinary Antrea NetworkPolicy applied to the same VM (for the
//     Service, an IP change of such an entity). Each change is also timed
//     through its stages: the leader's RemoteEntity (or imported slice) and
//     the member controller's Group (watches on member-2), the policy
//     controller's publication ("Published" at -v 1) and the start of the
//     agent's nftables apply ("Applied rules" minus its took), from their
//     logs, by generation.
//
//   - Cost: remote IP and Service endpoint changes made alone, and around
//     them the federation managers' writes per change per importing member
//     (antreaplus_leader_controller_writes_total of
//     entityimport and serviceimport) and member-2's member
//     controller's writes per change (antreaplus_federatedpolicy_writes_total).
//
//   - Compile time, in process: the translation (package
//     federatedpolicy/translate) of 1k federated policies over 10k remote
//     entities, against the policy compiler compiling what it derived.
//
//     sudo -E go run ./test/bench/fedpolicybench -runs 30 -json _output/bench/fedpolicy.json
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"antreaplus.io/antreaplus/test/bench/benchtable"
)

type settings struct {
	runs, newRuns, serviceRuns, costChanges, compileRuns int
	timeout, settle                                      time.Duration
	logs                                                 string
}

func main() {
	var s settings
	flag.IntVar(&s.runs, "runs", 30, "IP changes measured, remote and local each")
	flag.IntVar(&s.newRuns, "new-runs", 10, "new entities measured, remote and local each")
	flag.IntVar(&s.serviceRuns, "service-runs", 10, "federated Service endpoint changes measured, and as many local IP changes")
	flag.IntVar(&s.costChanges, "cost-changes", 10, "remote IP and Service endpoint changes made alone, for the write counts")
	flag.IntVar(&s.compileRuns, "compile-runs", 3, "translations and compilations of the 1k policies (median)")
	flag.DurationVar(&s.timeout, "timeout", 30*time.Second, "how long one change may take to reach the agent")
	flag.DurationVar(&s.settle, "settle", 300*time.Millisecond, "pause after each change is applied")
	flag.StringVar(&s.logs, "logs", "", "copy the controllers' and the agent's logs into this directory")
	out := flag.String("json", "", "write the figures as JSON to this file")
	flag.Parse()
	if s.runs < 1 || s.newRuns < 1 || s.serviceRuns < 1 || s.costChanges < 1 || s.compileRuns < 1 {
		fmt.Fprintln(os.Stderr, "fedpolicybench: every run count must be at least 1")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	cl := &cleanup{}
	go func() {
		<-ctx.Done()
		// Interrupted: the run unwinds and cleans up; if it does not
		// within 30 s, clean up from here.
		time.Sleep(30 * time.Second)
		cl.run()
		os.Exit(130)
	}()
	err := run(ctx, s, *out, cl)
	cl.run()
	interrupted := ctx.Err() != nil
	stop()
	switch {
	case err != nil && interrupted:
		fmt.Fprintln(os.Stderr, "fedpolicybench: interrupted; every process, cluster and network namespace it started is stopped")
		os.Exit(130)
	case err != nil:
		fmt.Fprintln(os.Stderr, "fedpolicybench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, s settings, out string, cl *cleanup) (err error) {
	if err := checkRoot(); err != nil {
		return err
	}
	loadBefore := loadAverage()
	compiled, err := measureCompile(s.compileRuns)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "fedpolicybench-")
	if err != nil {
		return err
	}
	cl.add(func() { keepLogs(dir, s.logs, err) })
	e, err := startEnv(ctx, dir, cl)
	if err != nil {
		return err
	}
	logf("federation of %d members formed, every member led; starting the VM", members)
	lab, err := startVMLab(ctx, e, cl)
	if err != nil {
		return err
	}
	b := newBench(s, e, lab)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b.seen.watchStages(wctx, e.members[enforcer].c)
	if err := b.setup(ctx); err != nil {
		return err
	}
	costs, err := b.measureAll(ctx)
	if err != nil {
		return err
	}
	figures := append(b.latencyFigures(), costFigures(costs)...)
	figures = append(figures, compiled...)
	b.printTargets()
	fmt.Printf("machine: %d CPUs, 1-minute load average %s before and %s after\n", runtime.NumCPU(), loadBefore, loadAverage())
	return benchtable.WriteJSON(out, "federated-policy", map[string]any{
		"members": members, "supervisors": supervisors, "runs": s.runs, "newRuns": s.newRuns, "serviceRuns": s.serviceRuns,
		"costChanges": s.costChanges, "compileRuns": s.compileRuns, "settle": s.settle.String(), "peersPerRole": peersPerRole,
		"compilePolicies": compileNamespaces * compilePoliciesPerNS, "compileRemoteEntities": compileNamespaces * compileRemotePerNS,
		"cpus": runtime.NumCPU(), "loadAverageBefore": loadBefore, "loadAverageAfter": loadAverage(),
	}, figures)
}

// measureAll makes every change: each remote kind interleaved with its
// local counterpart, then remote IP and Service endpoint changes alone,
// with the write counters read around them.
func (b *bench) measureAll(ctx context.Context) ([]cost, error) {
	for _, p := range []struct {
		pair
		runs int
	}{{b.ipChanges(ctx), b.s.runs}, {b.natChanges(ctx), b.s.runs}, {b.newEntities(ctx), b.s.newRuns}, {b.serviceChanges(ctx), b.s.serviceRuns}} {
		if err := b.interleave(ctx, p.pair, p.runs); err != nil {
			return nil, err
		}
	}
	ip, err := b.measureCost(ctx, kindRemoteIPAlone, entityImportWrites, entityImporters, b.s.costChanges,
		func(i int) func() (netip.Addr, error) {
			return b.moveEntity(ctx, exporter, roleRemoteIP, i%peersPerRole)
		})
	if err != nil {
		return nil, err
	}
	svc, err := b.measureCost(ctx, kindServiceAlone, serviceImportWrites, serviceImporters, b.s.costChanges,
		func(int) func() (netip.Addr, error) { return b.moveEndpoint(ctx) })
	if err != nil {
		return nil, err
	}
	logf("%d changes of each kind made alone, writes counted", b.s.costChanges)
	return []cost{ip, svc}, nil
}

// measureCompile times the translation and its baseline, in process,
// before the clusters start.
func measureCompile(runs int) ([]benchtable.Figure, error) {
	w := newCompileWorld()
	var tr, co []float64
	var last compileSample
	for range runs {
		s, err := w.translateAndCompile()
		if err != nil {
			return nil, err
		}
		tr, co = append(tr, ms(s.translate)), append(co, ms(s.compile))
		last = s
	}
	logf("compile: %d policies and %d Groups (%d addresses) derived, %d notes; %d endpoints, %d compiled rules",
		last.policies, last.groups, last.addresses, last.notices, last.endpoints, last.compiledRules)
	figures := []benchtable.Figure{
		benchtable.Summarize(fmt.Sprintf("translate %d federated policies over %d remote entities", len(w.policies), len(w.remote)), "ms", tr),
		benchtable.Summarize(fmt.Sprintf("  baseline: compile the %d derived policies + %d Groups", last.policies, last.groups), "ms", co),
		benchtable.Summarize("  ratio translate / compile", "x", benchtable.Ratios(tr, co)),
	}
	benchtable.Print(os.Stdout, "compile time, in process (median of runs)", figures)
	w = nil
	debug.FreeOSMemory()
	return figures, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// keepLogs copies the logs where asked; after a failure they stay in the
// run's directory, which is otherwise removed.
func keepLogs(dir, to string, runErr error) {
	logs := filepath.Join(dir, "logs")
	if to != "" {
		if err := os.MkdirAll(to, 0o755); err == nil {
			if err := exec.Command("cp", "-r", logs+"/.", to).Run(); err == nil {
				logf("logs in %s", to)
			}
		}
	}
	if runErr != nil && to == "" && !errors.Is(runErr, context.Canceled) {
		logf("logs kept in %s", logs)
		_ = os.RemoveAll(filepath.Join(dir, "vm"))
		return
	}
	_ = os.RemoveAll(dir)
}

// loadAverage is the 1-minute load average of the machine.
func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(raw))[0]
}
