// Command networkbench measures the federated-policy translation on real
// networks (docs/networks.md), in process: 1,000 federated policies over
// 10,000 remote entities spread over 20 networks (10 flat-connected to the
// enforcing network, 10 behind NAT gateways, their ranges overlapping the
// member's own), half of the policies also applied to Pods (a second
// enforcement network: their rules are copied per network), against the
// baseline measured in the same run: the same policies over the same
// entities in one network flat to every enforcement point, which is what
// the translation did before networks. It prints the median time and
// allocated memory of a translation of all policies and their ratios, and
// writes them as JSON.
//
//	go run ./test/bench/networkbench -runs 5 -json _output/bench/networks.json
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"antreaplus.io/antreaplus/pkg/federatedpolicy/translate"
	"antreaplus.io/antreaplus/test/bench/benchtable"
)

func main() {
	runs := flag.Int("runs", 5, "translations of every policy in each world (the median is reported)")
	networks := flag.Int("networks", 20, "networks the remote entities are spread over")
	jsonPath := flag.String("json", "", "write the figures as JSON to this file")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the runs to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "networkbench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if *runs < 1 || *networks < 2 || *networks%2 != 0 {
		fmt.Fprintln(os.Stderr, "networkbench: -runs must be at least 1 and -networks an even number of at least 2")
		os.Exit(2)
	}
	base, nets := newWorld(1), newWorld(*networks)
	var bt, nt, ba, na []float64
	var bs, ns summary
	for range *runs { // interleaved, so that load affects both alike
		d, a, s := base.translateAll()
		bt, ba, bs = append(bt, d), append(ba, a), s
		d, a, s = nets.translateAll()
		nt, na, ns = append(nt, d), append(na, a), s
	}
	fmt.Printf("one network:  %s\n%d networks: %s\n", bs, *networks, ns)
	policies := fmt.Sprintf("%d policies over %d remote entities", len(nets.policies), len(nets.entities))
	figures := []benchtable.Figure{
		benchtable.Summarize(fmt.Sprintf("translate %s in %d networks", policies, *networks), "ms", nt),
		benchtable.Summarize("  baseline: in one flat network", "ms", bt),
		benchtable.Summarize("  ratio (target <= 1.5)", "x", benchtable.Ratios(nt, bt)),
		benchtable.Summarize(fmt.Sprintf("memory allocated, %d networks", *networks), "MB", na),
		benchtable.Summarize("  baseline: in one flat network", "MB", ba),
		benchtable.Summarize("  ratio", "x", benchtable.Ratios(na, ba)),
	}
	benchtable.Print(os.Stdout, "federated-policy translation on networks, in process", figures)
	settings := map[string]any{"runs": *runs, "networks": *networks, "policies": len(nets.policies), "remoteEntities": len(nets.entities),
		"networksSummary": ns.String(), "baselineSummary": bs.String()}
	if err := benchtable.WriteJSON(*jsonPath, "networks", settings, figures); err != nil {
		fmt.Fprintln(os.Stderr, "networkbench:", err)
		pprof.StopCPUProfile()
		os.Exit(1) //nolint:gocritic // the profile is stopped above
	}
}

// summary is what one translation of every policy derived.
type summary struct {
	policies, split, groups, addresses, unusable, shared int
}

func (s summary) String() string {
	return fmt.Sprintf("%d derived policies (%d split per network), %d Groups, %d addresses; %d unusable and %d shared-egress lines",
		s.policies, s.split, s.groups, s.addresses, s.unusable, s.shared)
}

// translateAll translates every policy from nothing (the entities indexed
// and the networks read, as the member controller does): its time in ms,
// the memory it allocated in MB, and what it derived.
func (w *world) translateAll() (float64, float64, summary) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	in := w.inputs()
	var s summary
	for _, p := range w.policies {
		res := translate.Translate(p, in)
		if res.Policy == nil {
			continue
		}
		s.policies++
		if res.Policy.Spec.AppliedTo == nil {
			s.split++
		}
		s.groups += len(res.Groups)
		for _, g := range res.Groups {
			s.addresses += len(g.Spec.IPBlocks)
		}
		for _, src := range res.Report.RemoteSources {
			s.unusable += len(src.Unusable)
			s.shared += len(src.SharedEgress)
		}
	}
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	return float64(elapsed.Microseconds()) / 1000, float64(after.TotalAlloc-before.TotalAlloc) / (1 << 20), s
}
