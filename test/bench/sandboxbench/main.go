// Command sandboxbench measures the sandbox: how long `sandbox up` takes for
// one cluster (the baseline) and for three started together, and how much
// memory each cluster's processes hold. It prints a table and writes JSON.
//
//	go run ./test/bench/sandboxbench -runs 3 -json _output/bench/sandbox.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/toolchain"
	"antreaplus.io/antreaplus/test/bench/benchtable"
	"antreaplus.io/antreaplus/test/bench/procstat"
)

func main() {
	runs := flag.Int("runs", 3, "repetitions of each measurement")
	clusters := flag.Int("clusters", 3, "clusters started together")
	base := flag.Int("api-port-base", 12443, "API server port of member-1")
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
	figures := []benchtable.Figure{
		benchtable.Summarize("sandbox up, 1 cluster (baseline)", "s", one),
		benchtable.Summarize(fmt.Sprintf("sandbox up, %d clusters together", clusters), "s", many),
		benchtable.Summarize(fmt.Sprintf("ratio %d clusters / 1 cluster", clusters), "x", benchtable.Ratios(many, one)),
		benchtable.Summarize("memory per cluster (RSS of its 5 processes)", "MiB", mem),
		benchtable.Summarize("  of which kube-apiserver", "MiB", apiserverMem),
	}
	benchtable.Print(os.Stdout, "sandbox figure", figures)
	return benchtable.WriteJSON(out, "sandbox", map[string]any{"runs": runs, "clusters": clusters}, figures)
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
			mib := procstat.RSSMiB(procstat.PidFromFile(f))
			c.total += mib
			if strings.HasPrefix(filepath.Base(f), "kube-apiserver") {
				c.apiserver = mib
			}
		}
		rss = append(rss, c)
	}
	return took, rss, nil
}
