package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/test/bench/benchtable"
	"antreaplus.io/antreaplus/test/bench/procstat"
)

// scaleResult is what `make bench-scale` writes to scale.json: the
// issue's figures by their names, then the per-member costs.
type scaleResult struct {
	Members     int  `json:"members"`
	Supervisors int  `json:"supervisors"`
	Light       bool `json:"light"`
	// P99Ms and BaselineRatio: export -> import, slices and DNS answer in
	// every member, one export per interval; the ratio is p99 over the
	// baseline's p99 (the exporter's own watch), in the same run.
	P99Ms         float64 `json:"p99_ms"`
	P50Ms         float64 `json:"p50_ms"`
	BaselineRatio float64 `json:"baseline_ratio"`
	// Where the Lease writes' time went while exporting one per
	// interval: the managers' p99 over every write, and at the members
	// the API server's PUT of a Lease and the etcd update under it.
	LeaseWriteP99Ms       float64 `json:"lease_write_p99_ms"`
	LeaseWritesOver2s     float64 `json:"lease_writes_over_2s"`
	MemberLeasePutP99Ms   float64 `json:"member_lease_put_p99_ms"`
	MemberEtcdUpdateP99Ms float64 `json:"member_etcd_lease_update_p99_ms"`
	// FailoverS: kill -9 of the manager leading the most members until
	// every member it led is led again.
	FailoverS float64 `json:"failover_s"`
	Orphans   int     `json:"failover_orphans"`
	// LeadershipChanges over the steady (idle) run, every member summed.
	LeadershipChanges int     `json:"leadership_changes"`
	SteadyS           float64 `json:"steady_s"`
	// LoadAverageMax is the highest 1-minute load average seen in the
	// steady run.
	LoadAverageMax float64 `json:"load_average_max"`
	// Per supervisor, divided by the members it leads (median over the
	// supervisors), at idle.
	SupervisorRSSMiBPerMember float64 `json:"supervisor_rss_mib_per_member"`
	// The same without the program's mapped text (about 39 MiB of a
	// supervisor's RSS whatever it leads): its heap and stacks.
	SupervisorAnonRSSMiBPerMember float64 `json:"supervisor_anon_rss_mib_per_member"`
	SupervisorCPUPctPerMember     float64 `json:"supervisor_cpu_pct_per_member"`
	SupervisorConnections         float64 `json:"supervisor_tcp_connections"`
	// Requests per second each member's API server receives from the
	// federation at idle (median over members): its Lease traffic, and
	// everything else the federation's account sends.
	LeaseRequestsPerS float64 `json:"lease_requests_per_s_per_member"`
	OtherRequestsPerS float64 `json:"other_federation_requests_per_s_per_member"`
	// The machine's split at idle: the members' control planes (etcd,
	// kube-apiserver) against ours (managers, member controllers, DNS).
	ControlPlaneCPUPct float64 `json:"control_plane_cpu_pct"`
	ControlPlaneRSSMiB float64 `json:"control_plane_rss_mib"`
	OursCPUPct         float64 `json:"antreaplus_cpu_pct"`
	OursRSSMiB         float64 `json:"antreaplus_rss_mib"`
}

func writeScaleJSON(path string, r scaleResult, figures []benchtable.Figure) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(struct {
		scaleResult
		Figures []benchtable.Figure `json:"figures"`
	}{r, figures}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o644)
}

// loadAverage is the 1-minute load average.
func loadAverage() float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// steadyRun leaves the federation idle for d, sampling the load average,
// and returns the changes of leader it saw and the highest load.
func steadyRun(ctx context.Context, members []member, d time.Duration) (float64, float64, error) {
	before, err := terms(ctx, members)
	if err != nil {
		return 0, 0, err
	}
	var peak float64
	for end := time.Now().Add(d); time.Now().Before(end); {
		peak = max(peak, loadAverage())
		time.Sleep(5 * time.Second)
	}
	changes, err := termChanges(ctx, members, before)
	return changes, peak, err
}

// leaders reads every member's leader Lease holder.
func leaders(ctx context.Context, members []member) map[string]string {
	out := map[string]string{}
	for _, m := range members {
		l := &coordinationv1.Lease{}
		if err := m.c.Get(ctx, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.LeaderLease}, l); err == nil && l.Spec.HolderIdentity != nil {
			out[m.name] = *l.Spec.HolderIdentity
		}
	}
	return out
}

// group is a set of processes whose cost is summed.
type group struct {
	name string
	pids []int
}

// idleCost samples, over window at idle: each supervisor's manager (RSS,
// CPU, TCP connections; divided by the members it leads), the requests
// each member's API server receives from the federation (its own
// Priority and Fairness counters, by FlowSchema), and the machine's split
// between the members' control planes and our processes.
func idleCost(ctx context.Context, sb *sandbox.Sandbox, members []member, supervisors []string, metricsAddrs map[string]string, window time.Duration, r *scaleResult) ([]benchtable.Figure, error) {
	led := map[string]int{}
	for _, l := range leaders(ctx, members) {
		led[l]++
	}
	control, ours, err := processGroups(ctx, sb, members)
	if err != nil {
		return nil, err
	}
	managers := map[string]int{}
	for _, s := range supervisors {
		managers[s] = sb.ManagerPid(s)
	}
	cpu0 := map[int]float64{}
	for _, g := range []group{control, ours} {
		for _, pid := range g.pids {
			cpu0[pid], _ = procstat.CPUSeconds(pid)
		}
	}
	req0, err := requestCounts(ctx, members)
	if err != nil {
		return nil, err
	}
	writes0, err := registryWrites(ctx, metricsAddrs)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	time.Sleep(window)
	elapsed := time.Since(t0).Seconds()
	req1, err := requestCounts(ctx, members)
	if err != nil {
		return nil, err
	}
	writes1, err := registryWrites(ctx, metricsAddrs)
	if err != nil {
		return nil, err
	}
	cpuPct := func(pid int) float64 {
		c1, _ := procstat.CPUSeconds(pid)
		return 100 * (c1 - cpu0[pid]) / elapsed
	}
	sum := func(g group) (cpu, rss float64) {
		for _, pid := range g.pids {
			cpu += cpuPct(pid)
			rss += procstat.RSSMiB(pid)
		}
		return cpu, rss
	}
	r.ControlPlaneCPUPct, r.ControlPlaneRSSMiB = sum(control)
	r.OursCPUPct, r.OursRSSMiB = sum(ours)
	var rssPer, anonPer, cpuPer, conns []float64
	var figs []benchtable.Figure
	for _, s := range supervisors {
		pid, n := managers[s], led[s]
		if pid == 0 || n == 0 {
			continue
		}
		rss, anon, cpu := procstat.RSSMiB(pid), procstat.AnonRSSMiB(pid), cpuPct(pid)
		c, _ := procstat.TCPConnections(pid)
		rssPer, anonPer = append(rssPer, rss/float64(n)), append(anonPer, anon/float64(n))
		cpuPer, conns = append(cpuPer, cpu/float64(n)), append(conns, float64(c))
		figs = append(figs, benchtable.Figure{Name: fmt.Sprintf("  manager of %s, leading %d: RSS / CPU %% / conns", s, n),
			Unit: fmt.Sprintf("MiB (%.0f MiB anonymous, %.1f%% core, %d conns)", anon, cpu, c), Median: rss, Min: rss, Max: rss})
	}
	// Each supervisor's registry: the reports its manager writes there,
	// and what its own control plane (which serves them, beside being a
	// member like any other) spends.
	for _, s := range supervisors {
		var cp float64
		for _, c := range []string{"etcd", "kube-apiserver"} {
			if pid := procstat.PidFromFile(filepath.Join(sb.ClusterDir(s), "pids", c+".pid")); pid > 0 {
				cp += cpuPct(pid)
			}
		}
		w := (writes1[s] - writes0[s]) / elapsed
		figs = append(figs, benchtable.Figure{Name: fmt.Sprintf("  registry of %s: status writes", s),
			Unit: fmt.Sprintf("writes/s (its control plane %.1f%% core)", cp), Median: w, Min: w, Max: w})
	}
	var lease, other []float64
	for _, m := range members {
		lease = append(lease, (req1[m.name].leases-req0[m.name].leases)/elapsed)
		other = append(other, (req1[m.name].accounts-req0[m.name].accounts)/elapsed)
	}
	rs, cs, cn := benchtable.Summarize("", "", rssPer), benchtable.Summarize("", "", cpuPer), benchtable.Summarize("", "", conns)
	r.SupervisorRSSMiBPerMember, r.SupervisorCPUPctPerMember, r.SupervisorConnections = rs.Median, cs.Median, cn.Median
	as := benchtable.Summarize("", "", anonPer)
	r.SupervisorAnonRSSMiBPerMember = as.Median
	l, o := benchtable.Summarize("", "", lease), benchtable.Summarize("", "", other)
	r.LeaseRequestsPerS, r.OtherRequestsPerS = l.Median, o.Median
	n := len(members)
	figs = append([]benchtable.Figure{
		benchtable.Summarize(fmt.Sprintf("%d members, idle: supervisor RSS per member led", n), "MiB", rssPer),
		benchtable.Summarize(fmt.Sprintf("%d members, idle: the same, anonymous (without the program's text)", n), "MiB", anonPer),
		benchtable.Summarize(fmt.Sprintf("%d members, idle: supervisor CPU per member led", n), "% core", cpuPer),
		benchtable.Summarize(fmt.Sprintf("%d members, idle: supervisor TCP connections", n), "conns", conns),
		benchtable.Summarize(fmt.Sprintf("%d members, idle: Lease requests received per member", n), "req/s", lease),
		benchtable.Summarize(fmt.Sprintf("%d members, idle: other federation requests per member", n), "req/s", other),
		{Name: fmt.Sprintf("%d members, idle: control planes (%d processes) CPU", n, len(control.pids)), Unit: fmt.Sprintf("%% core (%.0f MiB)", r.ControlPlaneRSSMiB), Median: r.ControlPlaneCPUPct, Min: r.ControlPlaneCPUPct, Max: r.ControlPlaneCPUPct},
		{Name: fmt.Sprintf("%d members, idle: AntreaPlus (%d processes) CPU", n, len(ours.pids)), Unit: fmt.Sprintf("%% core (%.0f MiB)", r.OursRSSMiB), Median: r.OursCPUPct, Min: r.OursCPUPct, Max: r.OursCPUPct},
	}, figs...)
	return figs, nil
}

// registryWrites reads how many registry status writes each supervisor's
// manager has made.
func registryWrites(ctx context.Context, metricsAddrs map[string]string) (map[string]float64, error) {
	out := map[string]float64{}
	for sup, addr := range metricsAddrs {
		fs, err := managerMetrics(ctx, sup, addr)
		if err != nil {
			return nil, err
		}
		for _, v := range fs.countersOf("antreaplus_federation_registry_status_writes_total", "result") {
			out[sup] += v
		}
	}
	return out, nil
}

// processGroups are the members' control planes (etcd, kube-apiserver)
// and our processes (managers, member controllers, DNS servers).
func processGroups(ctx context.Context, sb *sandbox.Sandbox, members []member) (control, ours group, err error) {
	control.name, ours.name = "members' control planes (etcd, kube-apiserver)", "AntreaPlus (managers, member controllers, DNS servers)"
	for _, m := range members {
		for _, c := range []string{"etcd", "kube-apiserver"} {
			if pid := procstat.PidFromFile(filepath.Join(sb.ClusterDir(m.name), "pids", c+".pid")); pid > 0 {
				control.pids = append(control.pids, pid)
			}
		}
	}
	svcs, err := sb.Services(ctx)
	if err != nil {
		return control, ours, err
	}
	for _, s := range svcs {
		if s.Pid > 0 {
			ours.pids = append(ours.pids, s.Pid)
		}
	}
	return control, ours, nil
}

// cpuSeconds is the CPU time the group's processes have used.
func (g group) cpuSeconds() float64 {
	var t float64
	for _, pid := range g.pids {
		c, _ := procstat.CPUSeconds(pid)
		t += c
	}
	return t
}

// churnCost measures what the exports cost: it returns a function to call
// after them, which gives the CPU-seconds each group and this bench used
// per import written (Services times members).
func churnCost(ctx context.Context, sb *sandbox.Sandbox, members []member) (func(imports int) []benchtable.Figure, error) {
	control, ours, err := processGroups(ctx, sb, members)
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	c0, o0, s0, t0 := control.cpuSeconds(), ours.cpuSeconds(), selfCPU(self), time.Now()
	return func(imports int) []benchtable.Figure {
		dc, do, ds := control.cpuSeconds()-c0, ours.cpuSeconds()-o0, selfCPU(self)-s0
		wall := time.Since(t0).Seconds()
		per := func(v float64) float64 { return 1000 * v / float64(imports) }
		fig := func(name string, v float64) benchtable.Figure {
			return benchtable.Figure{Name: name, Unit: fmt.Sprintf("ms CPU per import (%.0f%% of a core)", 100*v/wall), Median: per(v), Min: per(v), Max: per(v)}
		}
		return []benchtable.Figure{
			fig(fmt.Sprintf("%d members, exports: members' control planes", len(members)), dc),
			fig("  AntreaPlus (managers, member controllers, DNS servers)", do),
			fig("  this bench (its watches of every member, DNS queries)", ds),
		}
	}, nil
}

func selfCPU(pid int) float64 {
	c, _ := procstat.CPUSeconds(pid)
	return c
}

// flowCounts are a member API server's dispatched requests: those the
// federation's Lease FlowSchema matched, and those of service accounts
// (the federation account's other requests; the sandbox's own processes
// use admin credentials, which are exempt).
type flowCounts struct{ leases, accounts float64 }

func requestCounts(ctx context.Context, members []member) (map[string]flowCounts, error) {
	out := map[string]flowCounts{}
	for _, m := range members {
		raw, err := m.cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
		if err != nil {
			return nil, fmt.Errorf("the metrics of %s: %w", m.name, err)
		}
		out[m.name] = parseFlowCounts(raw)
	}
	return out, nil
}

func parseFlowCounts(raw []byte) flowCounts {
	var c flowCounts
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_flowcontrol_dispatched_requests_total{") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		switch {
		case strings.Contains(line, `flow_schema="`+federationv1alpha1.FederationFlowSchema+`"`):
			c.leases += v
		case strings.Contains(line, `flow_schema="service-accounts"`):
			c.accounts += v
		}
	}
	return c
}

// failover kills -9 the manager leading the most members and times until
// every member it led is led by another supervisor; the manager is
// started again after.
func failover(ctx context.Context, sb *sandbox.Sandbox, members []member, supervisors []string, bin string, args []string, argsFor func(string) []string) (time.Duration, int, error) {
	before := leaders(ctx, members)
	load := map[string]int{}
	for _, l := range before {
		load[l]++
	}
	victim := supervisors[0]
	for _, s := range supervisors {
		if load[s] > load[victim] {
			victim = s
		}
	}
	pid := sb.ManagerPid(victim)
	if pid == 0 {
		return 0, 0, fmt.Errorf("no manager runs in %s", victim)
	}
	var orphans []member
	for _, m := range members {
		if before[m.name] == victim {
			orphans = append(orphans, m)
		}
	}
	fmt.Fprintf(os.Stderr, "servicesbench: kill -9 of the manager of %s, leading %d of %d members\n", victim, len(orphans), len(members))
	start := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return 0, 0, err
	}
	for len(orphans) > 0 {
		if time.Since(start) > time.Minute {
			return 0, 0, fmt.Errorf("%d members not led again within a minute of the kill", len(orphans))
		}
		now := leaders(ctx, orphans)
		var left []member
		for _, m := range orphans {
			if h := now[m.name]; h == "" || h == victim {
				left = append(left, m)
			}
		}
		orphans = left
		if len(orphans) > 0 {
			time.Sleep(50 * time.Millisecond)
		}
	}
	took := time.Since(start)
	for sandbox.Alive(pid) {
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := sb.StartManager(victim, bin, append(slices.Clip(args), argsFor(victim)...)...); err != nil {
		return 0, 0, err
	}
	return took, load[victim], nil
}

// supervisorNames are the first k members: the sandbox's supervisors.
func supervisorNames(members []member, k int) []string {
	var out []string
	for _, m := range members[:k] {
		out = append(out, m.name)
	}
	return out
}
