package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
	mcsclient "sigs.k8s.io/mcs-api/pkg/client/clientset/versioned"

	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/test/bench/benchtable"
)

type bench struct {
	s    settings
	sb   *sandbox.Sandbox
	bin  string
	dir  string
	recs []record // ClusterSetIP imports
	// headless are the headless imports.
	headless []record
	zone     string
}

// settle is how long the servers run after they are ready before their
// memory is read.
const settle = 10 * time.Second

func (b *bench) measure(ctx context.Context) ([]benchtable.Figure, error) {
	kubeconfig := b.sb.KubeconfigPath()
	var servers []*server
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()
	for _, c := range []struct {
		name, corefile string
		args           []any
	}{
		{"ours", oursCorefile, []any{kubeconfig, "member-1"}},
		{"stock-file", fileCorefile, []any{b.zone}},
		{"stock-k8s", kubernetesCorefile, []any{kubeconfig, "member-1"}},
	} {
		s, err := startServer(b.bin, b.dir, c.name, c.corefile, c.args...)
		if err != nil {
			return nil, err
		}
		servers = append(servers, s)
	}
	ours, stock, k8s := servers[0], servers[1], servers[2]
	time.Sleep(settle)
	rssStart := make([]float64, len(servers))
	for i, s := range servers {
		rssStart[i] = s.rssMiB()
	}

	if err := b.verify(ours, stock, k8s); err != nil {
		return nil, err
	}
	loads, err := b.workloads(ours, stock, k8s)
	if err != nil {
		return nil, err
	}
	for _, w := range loads { // warm-up, not measured
		if _, err := generate(w.server.target(), w.queries, b.s.clients, 2*time.Second, b.s.limit); err != nil {
			return nil, err
		}
	}
	for r := range b.s.runs {
		order := slices.Clone(loads)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, w := range order {
			if err := b.load(w.server, w.queries, b.s.clients, b.s.duration, r, &w.loaded); err != nil {
				return nil, err
			}
			if w.light && b.s.latencyClients > 0 {
				if err := b.load(w.server, w.queries, b.s.latencyClients, b.s.duration/3, r, &w.lightRuns); err != nil {
					return nil, err
				}
			}
		}
	}
	after, err := memory(servers)
	if err != nil {
		return nil, err
	}
	o, st, k := &loads[0].loaded, &loads[1].loaded, &loads[2].loaded
	oCS, oHL, kHL, oPC, stPC := &loads[3].loaded, &loads[4].loaded, &loads[5].loaded, &loads[6].loaded, &loads[7].loaded
	figures := []benchtable.Figure{
		benchtable.Summarize(fmt.Sprintf("queries/s, federation names (ours, %d clients)", b.s.clients), "q/s", o.qps),
		benchtable.Summarize("queries/s, same records from a zone file (stock file)", "q/s", st.qps),
		benchtable.Summarize("ratio ours / stock file (target >= 0.9)", "x", benchtable.Ratios(o.qps, st.qps)),
		benchtable.Summarize("queries/s, clusterset.local names (stock kubernetes)", "q/s", k.qps),
		benchtable.Summarize("ratio ours / stock kubernetes", "x", benchtable.Ratios(o.qps, k.qps)),
		benchtable.Summarize("queries/s, clusterset.local names (ours)", "q/s", oCS.qps),
		benchtable.Summarize("ratio ours / stock kubernetes, clusterset.local names", "x", benchtable.Ratios(oCS.qps, k.qps)),
		benchtable.Summarize("queries/s, headless names (ours)", "q/s", oHL.qps),
		benchtable.Summarize("queries/s, headless names (stock kubernetes)", "q/s", kHL.qps),
		benchtable.Summarize("ratio ours / stock kubernetes, headless names", "x", benchtable.Ratios(oHL.qps, kHL.qps)),
		benchtable.Summarize("queries/s, per-cluster names (ours)", "q/s", oPC.qps),
		benchtable.Summarize("queries/s, per-cluster names from a zone file (stock file)", "q/s", stPC.qps),
		benchtable.Summarize("ratio ours / stock file, per-cluster names", "x", benchtable.Ratios(oPC.qps, stPC.qps)),
		benchtable.Summarize("p50 latency (ours)", "ms", o.p50),
		benchtable.Summarize("p50 latency (stock file)", "ms", st.p50),
		benchtable.Summarize("p99 latency (ours)", "ms", o.p99),
		benchtable.Summarize("p99 latency (stock file)", "ms", st.p99),
	}
	if b.s.latencyClients > 0 {
		lo, ls := &loads[0].lightRuns, &loads[1].lightRuns
		figures = append(figures,
			benchtable.Summarize(fmt.Sprintf("p99 latency, %d client (ours, target < 1 ms)", b.s.latencyClients), "ms", lo.p99),
			benchtable.Summarize(fmt.Sprintf("p99 latency, %d client (stock file)", b.s.latencyClients), "ms", ls.p99),
			benchtable.Summarize(fmt.Sprintf("queries/s, %d client (ours)", b.s.latencyClients), "q/s", lo.qps),
			benchtable.Summarize(fmt.Sprintf("queries/s, %d client (stock file)", b.s.latencyClients), "q/s", ls.qps))
	}
	n := len(b.recs) + len(b.headless)
	figures = append(figures,
		benchtable.Summarize(fmt.Sprintf("RSS, ours with %d imports, after start", n), "MiB", []float64{rssStart[0]}),
		benchtable.Summarize("RSS, ours, after load", "MiB", []float64{after[0].rss}),
		benchtable.Summarize("live heap at the last GC, ours, after load", "MiB", []float64{after[0].live}),
		benchtable.Summarize("RSS, stock kubernetes alone, same imports, after start", "MiB", []float64{rssStart[2]}),
		benchtable.Summarize("RSS, stock kubernetes alone, after load", "MiB", []float64{after[2].rss}),
		benchtable.Summarize("live heap at the last GC, stock kubernetes alone, after load", "MiB", []float64{after[2].live}),
		benchtable.Summarize("live heap, ours - stock kubernetes alone", "MiB", []float64{after[0].live - after[2].live}),
		benchtable.Summarize("RSS, stock file, same records, after start", "MiB", []float64{rssStart[1]}),
		benchtable.Summarize("RSS, stock file, after load", "MiB", []float64{after[1].rss}),
		benchtable.Summarize("live heap at the last GC, stock file, after load", "MiB", []float64{after[1].live}))
	if b.s.updates > 0 {
		lat, err := b.updateLatency(ctx, ours)
		if err != nil {
			return nil, err
		}
		figures = append(figures, benchtable.Summarize("ServiceImport create call to federation name answered", "ms", lat))
	}
	return figures, nil
}

type memoryUse struct{ rss, live float64 }

// memory reads each server's resident memory and the live heap of its last
// garbage collection.
func memory(servers []*server) ([]memoryUse, error) {
	out := make([]memoryUse, len(servers))
	for i, s := range servers {
		live, err := s.liveHeapMiB()
		if err != nil {
			return nil, err
		}
		out[i] = memoryUse{rss: s.rssMiB(), live: live}
		fmt.Fprintf(os.Stderr, "%-10s RSS %.1f MiB, live heap at the last GC %.0f MiB\n", s.name, out[i].rss, live)
	}
	return out, nil
}

// series are the figures of one server's load runs.
type series struct{ qps, p50, p99 []float64 }

// load runs one load run against s and adds its figures to into.
func (b *bench) load(s *server, queries [][]byte, clients int, d time.Duration, run int, into *series) error {
	res, err := generate(s.target(), queries, clients, d, b.s.limit)
	if err != nil {
		return fmt.Errorf("load on %s: %w", s.name, err)
	}
	if res.failures > 0 {
		return fmt.Errorf("load on %s: %d of %d queries failed", s.name, res.failures, res.failures+res.queries)
	}
	fmt.Fprintf(os.Stderr, "run %d %-10s %d clients %8.0f q/s  p50 %.3f ms  p99 %.3f ms  (%d queries)\n",
		run+1, s.name, clients, res.qps(), res.percentile(0.5), res.percentile(0.99), res.queries)
	into.qps = append(into.qps, res.qps())
	into.p50 = append(into.p50, res.percentile(0.5))
	into.p99 = append(into.p99, res.percentile(0.99))
	return nil
}

func pick(names []string, n int) []string {
	out := make([]string, 0, n)
	for range n {
		out = append(out, names[rand.IntN(len(names))])
	}
	return out
}

// updateLatency writes new ServiceImports one at a time and times each
// until the server answers its federation name.
func (b *bench) updateLatency(ctx context.Context, s *server) ([]float64, error) {
	cfg, err := b.sb.RESTConfig("member-1")
	if err != nil {
		return nil, err
	}
	mcs, err := mcsclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	c := &dns.Client{Timeout: time.Second}
	var out []float64
	for i := range b.s.updates {
		name := fmt.Sprintf("late-%d", i)
		ip := fmt.Sprintf("10.101.0.%d", i+1)
		si := &mcsv1beta1.ServiceImport{ObjectMeta: metav1.ObjectMeta{Namespace: "bench-00", Name: name},
			Spec: mcsv1beta1.ServiceImportSpec{Type: mcsv1beta1.ClusterSetIP, IPs: []string{ip},
				Ports: []mcsv1beta1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80}}}}
		t0 := time.Now()
		if _, err := mcs.MulticlusterV1beta1().ServiceImports("bench-00").Create(ctx, si, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
		q := new(dns.Msg)
		q.SetQuestion(name+".bench-00."+federationID+".svc."+domain, dns.TypeA)
		for {
			if r, _, err := c.Exchange(q, s.target()); err == nil && len(r.Answer) == 1 {
				break
			}
			if time.Since(t0) > 10*time.Second {
				return nil, fmt.Errorf("%s not answered within 10s", name)
			}
			time.Sleep(time.Millisecond)
		}
		out = append(out, float64(time.Since(t0).Microseconds())/1000)
	}
	slices.Sort(out)
	return out, nil
}
