// Command sandboxbench measures the sandbox: how long `sandbox up` takes for
// one cluster (the baseline) and for three started together, and how much
// memory each cluster's processes hold. It prints a table and writes JSON.
//
//	go run ./test/bench/sandboxbench -runs 3 -json _output/bench/sandbox.json
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/toolchain"
)

type figure struct {
	Name   string    `json:"name"`
	Unit   string    `json:"unit"`
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	Runs   []float64 `json:"runs"`
}

func main() {
	runs := flag.Int("runs", 3, "repetitions of each measurement")
	clusters := flag.Int("clusters", 3, "clusters started together")
	base := flag.Int("api-port-base", 46443, "API server port of member-1")
	out := flag.String("json", "", "write the figures as JSON to this file")
	flag.Parse()
	if err := run(*runs, *clusters, *base, *out); err != nil {
		fmt.Fprintln(os.Stderr, "sandboxbench:", err)
		os.Exit(1)
	}
}

func run(runs, clusters, base int, out string) error {
	tools := toolchain.Toolchain{Dir: toolchain.DefaultDir()}
	if missing := tools.Missing(toolchain.SandboxTools()...); len(missing) > 0 {
		return fmt.Errorf("tools %v missing: run 'make tools'", missing)
	}
	var one, many, mem, apiserverMem []float64
	for r := 0; r < runs; r++ {
		d, _, err := upDown(tools, 1, base)
		if err != nil {
			return err
		}
		one = append(one, d.Seconds())
		d, rss, err := upDown(tools, clusters, base)
		if err != nil {
			return err
		}
		many = append(many, d.Seconds())
		for _, c := range rss {
			mem = append(mem, c.total)
			apiserverMem = append(apiserverMem, c.apiserver)
		}
		fmt.Fprintf(os.Stderr, "run %d/%d: 1 cluster %.1fs, %d clusters %.1fs\n", r+1, runs, one[r], clusters, many[r])
	}
	ratios := make([]float64, runs)
	for i := range ratios {
		ratios[i] = many[i] / one[i]
	}
	figures := []figure{
		summarize("sandbox up, 1 cluster (baseline)", "s", one),
		summarize(fmt.Sprintf("sandbox up, %d clusters together", clusters), "s", many),
		summarize(fmt.Sprintf("ratio %d clusters / 1 cluster", clusters), "x", ratios),
		summarize("memory per cluster (RSS of its 5 processes)", "MiB", mem),
		summarize("  of which kube-apiserver", "MiB", apiserverMem),
	}
	printTable(figures)
	if out == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	raw, _ := json.MarshalIndent(map[string]any{"benchmark": "sandbox", "figures": figures}, "", "  ")
	return os.WriteFile(out, raw, 0o644)
}

type clusterRSS struct{ total, apiserver float64 }

// upDown starts n clusters in a fresh directory, measures, and removes them.
func upDown(tools toolchain.Toolchain, n, base int) (time.Duration, []clusterRSS, error) {
	dir, err := os.MkdirTemp("", "sandboxbench-")
	if err != nil {
		return 0, nil, err
	}
	sb := sandbox.New(sandbox.Options{Dir: dir, APIPortBase: base, Tools: &tools})
	defer func() { _ = sb.Down(context.Background()) }()
	start := time.Now()
	if _, err := sb.Up(context.Background(), n); err != nil {
		return 0, nil, err
	}
	took := time.Since(start)
	time.Sleep(3 * time.Second) // let the components settle before reading memory
	var rss []clusterRSS
	for i := 1; i <= n; i++ {
		pidDir := filepath.Join(sb.ClusterDir(sandbox.ClusterName(i)), "pids")
		files, _ := filepath.Glob(filepath.Join(pidDir, "*.pid"))
		var c clusterRSS
		for _, f := range files {
			mib := rssMiB(f)
			c.total += mib
			if strings.HasPrefix(filepath.Base(f), "kube-apiserver") {
				c.apiserver = mib
			}
		}
		rss = append(rss, c)
	}
	return took, rss, nil
}

func rssMiB(pidFile string) float64 {
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		return 0
	}
	status, err := os.ReadFile("/proc/" + strings.TrimSpace(string(raw)) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

func summarize(name, unit string, xs []float64) figure {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return figure{Name: name, Unit: unit, Median: med, Min: s[0], Max: s[len(s)-1], Runs: xs}
}

func printTable(figures []figure) {
	fmt.Printf("\n%-48s %10s %10s %10s  %s\n", "sandbox figure", "median", "min", "max", "unit")
	for _, f := range figures {
		fmt.Printf("%-48s %10.2f %10.2f %10.2f  %s\n", f.Name, f.Median, f.Min, f.Max, f.Unit)
	}
}
