// Command dnsbench measures the member DNS server (cmd/coredns: the
// federation plugin answering clusterset.local and the federation names,
// the stock kubernetes plugin cluster.local) against a real kube-apiserver
// holding n imported ClusterSetIP Services, each a ServiceImport with a
// cluster-set IP and an EndpointSlice from each of two source clusters,
// and h headless ones whose endpoints have hostnames:
//
//   - queries per second and p50/p99 latency of federation names
//     (<svc>.<ns>.<federationID>.svc.cluster.local and the per-cluster
//     <svc>.<ns>.<clusterID>.<federationID>.svc.cluster.local), against the
//     baseline measured in the same run: the same binary with only the
//     stock file plugin serving the same records from a zone file;
//   - queries per second of per-cluster names alone (against the zone
//     file), and of clusterset.local names and headless names (the Service
//     name and each endpoint's name) against the same binary with only
//     stock CoreDNS's kubernetes plugin and its multicluster option;
//   - resident memory of the server with the imports, beside stock
//     CoreDNS's kubernetes plugin alone and the file plugin;
//   - the time from a ServiceImport written to its federation name answered.
//
// Load comes from closed-loop UDP clients in this process, on loopback,
// bounded by a duration and a query count. Servers compared answer the
// same names identically; the bench checks that before it measures.
//
//	go run ./test/bench/dnsbench -services 10000 -headless 1000 -runs 3 -json _output/bench/dns.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	mcsclient "sigs.k8s.io/mcs-api/pkg/client/clientset/versioned"

	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/toolchain"
	"antreaplus.io/antreaplus/test/bench/benchbuild"
	"antreaplus.io/antreaplus/test/bench/benchtable"
)

type settings struct {
	services, headless, runs, clients, parallel, base, updates int
	latencyClients                                             int
	duration                                                   time.Duration
	limit                                                      int64
}

func main() {
	var s settings
	flag.IntVar(&s.services, "services", 10000, "imported ClusterSetIP Services")
	flag.IntVar(&s.headless, "headless", 1000, "imported headless Services (two endpoints with hostnames in each source cluster)")
	flag.IntVar(&s.runs, "runs", 3, "load runs of each server")
	flag.DurationVar(&s.duration, "duration", 10*time.Second, "length of one load run")
	flag.Int64Var(&s.limit, "max-queries", 3_000_000, "most queries one load run sends")
	flag.IntVar(&s.clients, "clients", 4, "concurrent closed-loop UDP clients of the throughput runs")
	flag.IntVar(&s.latencyClients, "latency-clients", 1, "clients of the light-load latency runs (0 skips them)")
	flag.IntVar(&s.parallel, "parallel", 16, "concurrent API writes while creating the imports")
	flag.IntVar(&s.updates, "updates", 30, "imports written one by one to time until answered (0 skips)")
	flag.IntVar(&s.base, "api-port-base", 0, "API server port of the bench's cluster (0: any free range)")
	out := flag.String("json", "", "write the figures as JSON to this file")
	flag.Parse()
	if err := run(s, *out); err != nil {
		fmt.Fprintln(os.Stderr, "dnsbench:", err)
		os.Exit(1)
	}
}

func run(s settings, out string) (err error) {
	ctx := context.Background()
	tools := toolchain.Toolchain{Dir: toolchain.DefaultDir()}
	if missing := tools.Missing(toolchain.SandboxTools()...); len(missing) > 0 {
		return fmt.Errorf("tools %v missing: run 'make tools'", missing)
	}
	dir, err := os.MkdirTemp("", "dnsbench-")
	if err != nil {
		return err
	}
	if s.base == 0 {
		if s.base, err = freePortBase(); err != nil {
			return err
		}
	}
	sb := sandbox.New(sandbox.Options{Dir: filepath.Join(dir, "sandbox"), APIPortBase: s.base, NodesPerCluster: 1, Tools: &tools, Progress: os.Stderr})
	// Stop the cluster whatever happens, Ctrl-C included; keep the server
	// logs when the bench failed.
	stop := func() {
		if derr := sb.Down(ctx); derr != nil && err == nil {
			err = derr
		}
		if err == nil {
			_ = os.RemoveAll(dir)
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-sig; ok {
			_ = sb.Down(ctx)
			os.Exit(1)
		}
	}()
	defer func() {
		signal.Stop(sig)
		close(sig)
		stop()
	}()
	if _, err := sb.Up(ctx, 1); err != nil {
		return err
	}
	bin, err := benchbuild.Program(dir, "coredns")
	if err != nil {
		return err
	}
	recs, headless := records(s.services), headlessRecords(s.headless)
	created, err := createImports(ctx, sb, append(slices.Clone(recs), headless...), s.parallel)
	if err != nil {
		return err
	}
	zone := filepath.Join(dir, "db.cluster.local")
	if err := writeZone(zone, recs); err != nil {
		return err
	}
	b := &bench{s: s, sb: sb, bin: bin, dir: dir, recs: recs, headless: headless, zone: zone}
	figures, err := b.measure(ctx)
	if err != nil {
		return fmt.Errorf("%w (server logs in %s)", err, dir)
	}
	benchtable.Print(os.Stdout, fmt.Sprintf("DNS figure (%d imported Services and %d headless ones, %d load clients, loopback)", s.services, s.headless, s.clients), figures)
	fmt.Printf("Imports written in %.1fs. Baseline: the same binary with only the stock file plugin and a zone file of the same records.\n", created.Seconds())
	return benchtable.WriteJSON(out, "dns", map[string]any{
		"services": s.services, "headless": s.headless, "runs": s.runs, "duration": s.duration.String(), "maxQueries": s.limit,
		"clients": s.clients, "latencyClients": s.latencyClients, "sourceClustersPerService": len(sourceClusters), "endpointsPerCluster": 2,
	}, figures)
}

// createImports writes every record as the import writer would and says how long it took.
func createImports(ctx context.Context, sb *sandbox.Sandbox, recs []record, parallel int) (time.Duration, error) {
	cfg, err := sb.RESTConfig("member-1")
	if err != nil {
		return 0, err
	}
	cfg.QPS, cfg.Burst = 2000, 4000
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return 0, err
	}
	mcs, err := mcsclient.NewForConfig(cfg)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	fmt.Fprintf(os.Stderr, "writing %d ServiceImports and %d EndpointSlices ...\n", len(recs), len(recs)*len(sourceClusters))
	if err := (writer{kube: kube, mcs: mcs}).createAll(ctx, recs, parallel); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// freePortBase finds an API port base whose whole sandbox port range is free.
func freePortBase() (int, error) { return sandbox.FreeBase(1) }
