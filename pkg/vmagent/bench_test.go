package vmagent

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"antreaplus.io/antreaplus/internal/netns"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// largeView makes one endpoint with n compiled rules, as a busy VM might
// hold: a mix of tiers and actions, peers of one to eight prefixes (some
// shared between rules, as groups are), and port ranges.
func largeView(n int) *wire.View {
	tiers := []struct {
		name     string
		priority int32
	}{{"securityops", 100}, {"application", 250}, {"baseline", 253}}
	actions := []policyrules.Action{allow, drop, reject, allow, pass}
	var rules []wire.Rule
	for i := range n {
		tier := tiers[i*len(tiers)/n]
		action := actions[i%len(actions)]
		if tier.name == "baseline" && action == pass {
			action = drop
		}
		dir := in
		if i%4 == 3 {
			dir = out
		}
		r := rule(dir, tier.name, tier.priority, action, tcp(int32(1000+i), int32(1000+i+i%7)))
		if i%3 != 0 {
			var cidrs []string
			for j := range 1 + (i/3)%8 {
				cidrs = append(cidrs, fmt.Sprintf("10.%d.%d.0/24", 100+(i%50), j*2))
			}
			peers(cidrs...)(&r)
		}
		if i%10 == 0 {
			udp(int32(2000 + i))(&r)
		}
		r.PolicyPriority = float64(i / 10)
		rules = append(rules, r)
	}
	return viewOf("ns/bench", []string{"10.0.0.1", "fd00::1"}, rules...)
}

// BenchmarkNFTablesApply1kRules measures the agent's apply of 1,000
// compiled rules: rendering and one netlink batch that replaces the table
// (which already holds 1,000 rules, as in steady state), in a network
// namespace of its own.
func BenchmarkNFTablesApply1kRules(b *testing.B) {
	benchmarkApply(b, 1000)
}

// BenchmarkNFTablesApply10kRules is the same with 10,000 rules.
func BenchmarkNFTablesApply10kRules(b *testing.B) {
	benchmarkApply(b, 10000)
}

func benchmarkApply(b *testing.B, n int) {
	b.Helper()
	ns := benchNS(b, "apvb-")
	view := largeView(n)
	fw := &NFTables{NetNSFd: ns.Fd()}
	first := time.Now()
	res, err := fw.Apply(view)
	if err != nil {
		b.Fatal(err)
	}
	firstApply := time.Since(first)
	b.ResetTimer()
	for b.Loop() {
		if _, err := fw.Apply(view); err != nil {
			b.Fatal(err)
		}
	}
	perApply := b.Elapsed() / time.Duration(max(b.N, 1))
	b.StopTimer()
	b.ReportMetric(float64(perApply.Microseconds())/1000, "ms/apply")
	b.ReportMetric(float64(res.Rules), "nft-rules")
	baseline, err := nftBaseline(ns, 3)
	if err != nil {
		b.Logf("no nft(8) baseline: %v", err)
	} else {
		b.ReportMetric(float64(baseline.Microseconds())/1000, "nft-f-ms")
	}
	b.Logf("agent apply of %d compiled rules (%d nftables rules, one batch): first %s, replace %s; nft -f of the same table %s (ratio %.2f)",
		n, res.Rules, firstApply.Round(time.Microsecond), perApply.Round(time.Microsecond), baseline.Round(time.Microsecond),
		float64(perApply)/float64(max(baseline, 1)))
}

// benchNS is a network namespace of its own for a benchmark (root needed),
// deleted when it ends.
func benchNS(b *testing.B, prefix string) *netns.NS {
	b.Helper()
	requireRoot(b)
	netns.ReapOrphans(prefix)
	ns, err := netns.Create(fmt.Sprintf("%s%d", prefix, os.Getpid()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ns.Delete() })
	return ns
}

// nftBaseline measures nft(8) replacing the table the agent wrote with
// itself (the same rules, in one transaction): the baseline of the
// agent's apply, in the same run.
func nftBaseline(ns *netns.NS, runs int) (time.Duration, error) {
	listing, err := ns.Output("nft", "list", "table", "inet", DefaultTable)
	if err != nil {
		return 0, err
	}
	script := filepath.Join(os.TempDir(), ns.Name+".nft")
	body := "add table inet " + DefaultTable + "\ndelete table inet " + DefaultTable + "\n" + listing
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		return 0, err
	}
	defer func() { _ = os.Remove(script) }()
	var total time.Duration
	for range runs {
		start := time.Now()
		if _, err := ns.Output("nft", "-f", script); err != nil {
			return 0, err
		}
		total += time.Since(start)
	}
	return total / time.Duration(runs), nil
}

// BenchmarkNFTablesCounters1kRules measures what each report costs the
// agent: reading the counters of a table of 1,000 compiled rules and
// summing them by rule, against nft(8) listing the same table with its
// counters, in the same run.
func BenchmarkNFTablesCounters1kRules(b *testing.B) {
	benchmarkCounters(b, 1000)
}

// BenchmarkNFTablesCounters10kRules is the same with 10,000 rules.
func BenchmarkNFTablesCounters10kRules(b *testing.B) {
	benchmarkCounters(b, 10000)
}

func benchmarkCounters(b *testing.B, n int) {
	b.Helper()
	ns := benchNS(b, "apvc-")
	fw := &NFTables{NetNSFd: ns.Fd()}
	res, err := fw.Apply(largeView(n))
	if err != nil {
		b.Fatal(err)
	}
	var keys int
	b.ResetTimer()
	for b.Loop() {
		counts, err := fw.Counters()
		if err != nil {
			b.Fatal(err)
		}
		keys = len(counts)
	}
	perRead := b.Elapsed() / time.Duration(max(b.N, 1))
	b.StopTimer()
	if keys != n {
		b.Fatalf("read the counters of %d rules, want %d", keys, n)
	}
	var baseline time.Duration
	const runs = 3
	for range runs {
		start := time.Now()
		if _, err := ns.Output("nft", "list", "table", "inet", DefaultTable); err != nil {
			b.Fatal(err)
		}
		baseline += time.Since(start)
	}
	baseline /= runs
	b.ReportMetric(float64(perRead.Microseconds())/1000, "ms/read")
	b.ReportMetric(float64(baseline.Microseconds())/1000, "nft-list-ms")
	b.Logf("counters of %d compiled rules (%d nftables rules): read %s; nft list table %s (ratio %.2f)",
		n, res.Rules, perRead.Round(time.Microsecond), baseline.Round(time.Microsecond), float64(perRead)/float64(max(baseline, 1)))
}
