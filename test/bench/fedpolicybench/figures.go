package main

import (
	"fmt"
	"os"
	"time"

	"antreaplus.io/antreaplus/test/bench/benchtable"
)

// Targets (docs: "Figures to reach").
const (
	targetP99      = 2000 // ms, remote change to enforcement at 3 members
	targetP50Ratio = 3.0  // remote p50 / local p50
)

// stage is one step of a change on its way to the agent.
type stage struct {
	name string
	at   func(sample) (time.Time, bool)
}

func (b *bench) stages(kind string) []stage {
	published, err := logTimes(b.lab.controllerLog(), "Published", false)
	if err != nil {
		logf("reading the policy controller's log: %v", err)
	}
	applying, err := logTimes(b.lab.agentLog(), "Applied rules", true)
	if err != nil {
		logf("reading the agent's log: %v", err)
	}
	seen := func(st string) func(sample) (time.Time, bool) {
		return func(s sample) (time.Time, bool) { return b.seen.at(st, s.addr) }
	}
	byGen := func(m map[uint64]time.Time) func(sample) (time.Time, bool) {
		return func(s sample) (time.Time, bool) { t, ok := m[s.generation]; return t, ok }
	}
	late := []stage{{"published by the policy controller", byGen(published)}, {"agent began to apply (nftables)", byGen(applying)}}
	switch kind {
	case kindRemoteIP, kindRemoteNew, kindRemoteIPAlone, kindRemoteNAT:
		return append([]stage{{"RemoteEntity written by the leader", seen(stageRemoteEntity)},
			{"Group written by the member controller", seen(stageGroup)}}, late...)
	case kindService, kindServiceAlone:
		return append([]stage{{"imported EndpointSlice written by the leader", seen(stageImportSlice)},
			{"Group written by the member controller", seen(stageGroup)}}, late...)
	}
	return late
}

// latencyFigures prints and returns the change-to-enforcement figures.
func (b *bench) latencyFigures() []benchtable.Figure {
	var figures []benchtable.Figure
	add := func(label, kind string) {
		figures = append(figures, benchtable.WithPercentiles(label, "ms", b.millis(kind))...)
		for _, st := range b.stages(kind) {
			var v []float64
			for _, s := range b.of(kind) {
				if t, ok := st.at(s); ok {
					v = append(v, ms(t.Sub(s.start)))
				}
			}
			figures = append(figures, benchtable.Summarize("      stage: "+st.name, "ms", v))
		}
	}
	ratio := func(remote, local string) {
		r := benchtable.Ratio(benchtable.Percentile(b.millis(remote), 0.5), benchtable.Percentile(b.millis(local), 0.5))
		figures = append(figures, benchtable.Figure{Name: "  ratio p50 remote / p50 local", Unit: "x", Median: r, Min: r, Max: r})
	}
	add("remote VM IP change (member-1) applied by the agent", kindRemoteIP)
	add("  baseline: local IP change (member-2)", kindLocalIP)
	ratio(kindRemoteIP, kindLocalIP)
	add("remote NAT gateway address change (member-1) applied", kindRemoteNAT)
	add("  baseline: local IP change, alongside", kindLocalIPNAT)
	ratio(kindRemoteNAT, kindLocalIPNAT)
	add("new exported entity (member-1) applied by the agent", kindRemoteNew)
	add("  baseline: new local entity (member-2)", kindLocalNew)
	ratio(kindRemoteNew, kindLocalNew)
	add("federated Service endpoint change applied by the agent", kindService)
	add("  baseline: local IP change, alongside", kindLocalIPService)
	ratio(kindService, kindLocalIPService)
	add("remote VM IP change, made alone (cost runs)", kindRemoteIPAlone)
	add("federated Service endpoint change, made alone (cost runs)", kindServiceAlone)
	benchtable.Print(os.Stdout, fmt.Sprintf("federated policy: change to enforcement by a VM agent (%d members)", members), figures)
	return figures
}

func (b *bench) millis(kind string) []float64 {
	var out []float64
	for _, s := range b.of(kind) {
		out = append(out, s.ms())
	}
	return out
}

// printTargets says whether each remote kind met its targets.
func (b *bench) printTargets() {
	fmt.Printf("targets: remote change to enforcement p99 <= %d ms, p50 <= %.0fx the same change made locally\n", targetP99, targetP50Ratio)
	for _, k := range []struct{ remote, local string }{{kindRemoteIP, kindLocalIP}, {kindRemoteNAT, kindLocalIPNAT}, {kindRemoteNew, kindLocalNew}, {kindService, kindLocalIPService}} {
		p99 := benchtable.Percentile(b.millis(k.remote), 0.99)
		r := benchtable.Ratio(benchtable.Percentile(b.millis(k.remote), 0.5), benchtable.Percentile(b.millis(k.local), 0.5))
		fmt.Printf("  %-18s p99 %7.1f ms (%s), p50 %.2fx %s (%s)\n", k.remote+":", p99, verdict(p99 <= targetP99),
			r, k.local, verdict(r <= targetP50Ratio))
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

// costFigures prints and returns the write counts.
func costFigures(costs []cost) []benchtable.Figure {
	var figures []benchtable.Figure
	one := func(name string, v float64) {
		figures = append(figures, benchtable.Figure{Name: name, Unit: "writes", Median: v, Min: v, Max: v})
	}
	for _, c := range costs {
		total := 0.0
		for _, m := range c.importers {
			total += c.perImporter[m]
		}
		one(fmt.Sprintf("%s: leader writes per change per importing member", c.kind), total/float64(len(c.importers)))
		one("  floor", 1)
		for _, m := range c.importers {
			one("    into "+m, c.perImporter[m])
		}
		for _, k := range sortedKeys(c.leaderKinds) {
			one("    of which "+k+" (per importing member)", c.leaderKinds[k])
		}
		kinds := sortedKeys(c.derived)
		if len(kinds) == 0 {
			one("  member-2's member controller: writes per change", 0)
		}
		for _, k := range kinds {
			one("  member-2's member controller: "+k+" writes per change", c.derived[k])
		}
	}
	title := "cost: writes per change"
	if len(costs) > 0 {
		title = fmt.Sprintf("cost: writes per change (%d changes of each kind, made alone)", costs[0].changes)
	}
	benchtable.Print(os.Stdout, title, figures)
	return figures
}
