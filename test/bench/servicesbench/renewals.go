package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"sort"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/test/bench/benchtable"
)

// Where a Lease renewal's time goes, from the histograms of both ends: the
// managers' own (antreaplus_federation_lease_write_seconds, by phase, and
// the Go runtime's scheduling latency) and the members' API servers'
// (priority and fairness queueing of the federation's flow, the PUT of a
// Lease, the etcd update under it). A snapshot before and one after a
// phase of the bench; the figures are of what happened in between.

// histo is a cumulative histogram: counts of observations at most each
// upper bound, in increasing order of bound.
type histo struct {
	bounds []float64
	counts []float64
	count  float64
}

// add merges o into h; the bounds must be the same (or h empty).
func (h histo) add(o histo) histo {
	if len(h.bounds) == 0 {
		return histo{bounds: o.bounds, counts: append([]float64(nil), o.counts...), count: o.count}
	}
	out := histo{bounds: h.bounds, counts: append([]float64(nil), h.counts...), count: h.count + o.count}
	for i := range out.counts {
		if i < len(o.counts) {
			out.counts[i] += o.counts[i]
		}
	}
	return out
}

// sub is what was observed since before.
func (h histo) sub(before histo) histo {
	out := histo{bounds: h.bounds, counts: append([]float64(nil), h.counts...), count: h.count - before.count}
	for i := range out.counts {
		if i < len(before.counts) {
			out.counts[i] -= before.counts[i]
		}
	}
	return out
}

// quantile estimates the q-quantile as Prometheus's histogram_quantile
// does: linearly within the bucket it falls in; NaN when empty, the
// highest finite bound when it falls above it.
func (h histo) quantile(q float64) float64 {
	if h.count <= 0 || len(h.bounds) == 0 {
		return math.NaN()
	}
	rank := q * h.count
	prevBound, prevCount := 0.0, 0.0
	for i, b := range h.bounds {
		if h.counts[i] >= rank {
			if math.IsInf(b, 1) {
				return prevBound
			}
			if h.counts[i] == prevCount {
				return b
			}
			return prevBound + (b-prevBound)*(rank-prevCount)/(h.counts[i]-prevCount)
		}
		prevBound, prevCount = b, h.counts[i]
	}
	return prevBound
}

// above is how many observations exceeded the bound (one of the bounds).
func (h histo) above(bound float64) float64 {
	for i, b := range h.bounds {
		if b >= bound {
			return h.count - h.counts[i]
		}
	}
	return 0
}

// families are the metric families of one text exposition, by name.
type families map[string]*dto.MetricFamily

// parseMetrics parses a text exposition once, for every read of it.
func parseMetrics(raw []byte) (families, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(bytes.NewReader(raw))
}

// histogramsOf is the histograms of family name, merged by the key keep
// gives their labels (skipped when keep says no).
func (fs families) histogramsOf(name string, keep func(labels map[string]string) (string, bool)) map[string]histo {
	out := map[string]histo{}
	for _, m := range fs[name].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		key, ok := keep(labels)
		if !ok || m.GetHistogram() == nil {
			continue
		}
		out[key] = out[key].add(fromProto(m.GetHistogram()))
	}
	return out
}

// countersOf sums the counters of family name by the value of label.
func (fs families) countersOf(name, label string) map[string]float64 {
	out := map[string]float64{}
	for _, m := range fs[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				out[l.GetValue()] += m.GetCounter().GetValue()
			}
		}
	}
	return out
}

func fromProto(p *dto.Histogram) histo {
	var h histo
	for _, b := range p.GetBucket() {
		h.bounds = append(h.bounds, b.GetUpperBound())
		h.counts = append(h.counts, float64(b.GetCumulativeCount()))
	}
	h.bounds = append(h.bounds, math.Inf(1))
	h.counts = append(h.counts, float64(p.GetSampleCount()))
	h.count = float64(p.GetSampleCount())
	return h
}

// renewalSnapshot is every histogram the breakdown reads, at one time.
type renewalSnapshot struct {
	// phases are the managers' Lease writes by phase, every manager summed.
	phases map[string]histo
	// sched is each manager's Go scheduling latency.
	sched map[string]histo
	// stepDowns are the managers' step-downs by reason, every manager
	// summed: why leaders changed.
	stepDowns map[string]float64
	// lateRenewals are the renewals that came after the renew deadline
	// and kept the leadership (Fence closed meanwhile), every manager
	// summed.
	lateRenewals float64
	// queued, put and etcd are the members' API servers': priority and
	// fairness wait of the federation's flow, PUT of a Lease, etcd update
	// of a Lease; every member summed.
	queued, put, etcd histo
}

// managerAddrs gives each supervisor's manager a loopback address to serve
// its metrics on (a free port now).
func managerAddrs(supervisors []string) (map[string]string, error) {
	out := map[string]string{}
	for _, s := range supervisors {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		out[s] = l.Addr().String()
		_ = l.Close()
	}
	return out, nil
}

func scrape(ctx context.Context, url string) ([]byte, error) {
	return get(ctx, url, 10*time.Second)
}

// get GETs url within timeout and returns the body of a 200 answer.
func get(ctx context.Context, url string, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// managerMetrics scrapes the metrics of the manager of sup at addr.
func managerMetrics(ctx context.Context, sup, addr string) (families, error) {
	raw, err := scrape(ctx, "http://"+addr+"/metrics")
	if err == nil {
		var fs families
		if fs, err = parseMetrics(raw); err == nil {
			return fs, nil
		}
	}
	return nil, fmt.Errorf("the metrics of the manager of %s: %w", sup, err)
}

func takeRenewalSnapshot(ctx context.Context, members []member, managers map[string]string) (renewalSnapshot, error) {
	snap := renewalSnapshot{phases: map[string]histo{}, sched: map[string]histo{}, stepDowns: map[string]float64{}}
	for sup, addr := range managers {
		fs, err := managerMetrics(ctx, sup, addr)
		if err != nil {
			return snap, err
		}
		for p, h := range fs.histogramsOf("antreaplus_federation_lease_write_seconds", func(l map[string]string) (string, bool) { return l["phase"], true }) {
			snap.phases[p] = snap.phases[p].add(h)
		}
		snap.sched[sup] = fs.histogramsOf("go_sched_latencies_seconds", func(map[string]string) (string, bool) { return "", true })[""]
		for r, v := range fs.countersOf("antreaplus_federation_stepdowns_total", "reason") {
			snap.stepDowns[r] += v
		}
		for _, v := range fs.countersOf("antreaplus_federation_late_renewals_total", "member") {
			snap.lateRenewals += v
		}
	}
	for _, m := range members {
		raw, err := m.cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
		if err != nil {
			return snap, fmt.Errorf("the metrics of %s: %w", m.name, err)
		}
		fs, err := parseMetrics(raw)
		if err != nil {
			return snap, fmt.Errorf("the metrics of %s: %w", m.name, err)
		}
		for _, f := range []struct {
			name string
			keep func(map[string]string) bool
			into *histo
		}{
			{"apiserver_flowcontrol_request_wait_duration_seconds", func(l map[string]string) bool {
				return l["flow_schema"] == federationv1alpha1.FederationFlowSchema
			}, &snap.queued},
			{"apiserver_request_duration_seconds", func(l map[string]string) bool {
				return l["verb"] == "PUT" && l["resource"] == "leases"
			}, &snap.put},
			{"etcd_request_duration_seconds", func(l map[string]string) bool {
				return l["operation"] == "update" && l["resource"] == "leases"
			}, &snap.etcd},
		} {
			*f.into = f.into.add(fs.histogramsOf(f.name, func(l map[string]string) (string, bool) { return "", f.keep(l) })[""])
		}
	}
	return snap, nil
}

// renewalFigures are the p50 and p99 of every part of a Lease write over
// what happened between two snapshots, and how many took over each of
// overs (bounds of the managers' histogram).
func renewalFigures(before, after renewalSnapshot, overs []time.Duration) []benchtable.Figure {
	var out []benchtable.Figure
	row := func(name string, h histo) {
		p50, p99 := h.quantile(0.5)*1000, h.quantile(0.99)*1000
		if math.IsNaN(p50) {
			return
		}
		out = append(out, benchtable.Figure{Name: name + " p50", Unit: "ms", Median: p50, Min: p50, Max: p50},
			benchtable.Figure{Name: name + " p99", Unit: "ms", Median: p99, Min: p99, Max: p99})
	}
	count := func(name, unit string, v float64) {
		out = append(out, benchtable.Figure{Name: name, Unit: unit, Median: v, Min: v, Max: v})
	}
	reasons := make([]string, 0, len(after.stepDowns))
	for r := range after.stepDowns {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		if d := after.stepDowns[r] - before.stepDowns[r]; d > 0 {
			count("    step-downs: "+r, "changes", d)
		}
	}
	count("    late renewals, leadership kept (fenced meanwhile)", "renewals", after.lateRenewals-before.lateRenewals)
	total := after.phases["total"].sub(before.phases["total"])
	count("  Lease writes of the managers", "writes", total.count)
	for _, over := range overs {
		count(fmt.Sprintf("    of them over %s", over), "writes", total.above(over.Seconds()))
	}
	for _, p := range []string{"total", "queued", "sending", "answer", "reading"} {
		row("    manager: "+p, after.phases[p].sub(before.phases[p]))
	}
	row("    member: queued by priority and fairness", after.queued.sub(before.queued))
	row("    member: API server PUT of a Lease", after.put.sub(before.put))
	row("    member: etcd update of a Lease", after.etcd.sub(before.etcd))
	var worst string
	var worstP99 float64
	sups := make([]string, 0, len(after.sched))
	for s := range after.sched {
		sups = append(sups, s)
	}
	sort.Strings(sups)
	for _, s := range sups {
		if p := after.sched[s].sub(before.sched[s]).quantile(0.99); p > worstP99 || worst == "" {
			worst, worstP99 = s, p
		}
	}
	if worst != "" {
		row("    manager: Go scheduling latency (worst supervisor, "+worst+")", after.sched[worst].sub(before.sched[worst]))
	}
	return out
}
