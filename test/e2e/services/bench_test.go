package services

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	"antreaplus.io/antreaplus/test/bench/benchtable"
)

// convergence records, per member and name, when the ServiceImport (with
// its cluster-set IP) and an imported EndpointSlice with an endpoint were
// first seen, from watches on every member.
type convergence struct {
	mu     sync.Mutex
	seen   map[string]map[string][2]time.Time // member -> name -> [import, slice]
	cancel context.CancelFunc
}

func watchConvergence(b *testing.B, ns string) *convergence {
	ctx, cancel := context.WithCancel(context.Background())
	cv := &convergence{seen: map[string]map[string][2]time.Time{}, cancel: cancel}
	for _, m := range clusters.Names {
		cv.seen[m] = map[string][2]time.Time{}
		wc, err := client.NewWithWatch(clusters.Config(b, m), client.Options{Scheme: cl(b, m).Scheme()})
		if err != nil {
			b.Fatal(err)
		}
		for idx, list := range []client.ObjectList{&mcsv1beta1.ServiceImportList{}, &discoveryv1.EndpointSliceList{}} {
			w, err := wc.Watch(ctx, list, client.InNamespace(ns))
			if err != nil {
				b.Fatal(err)
			}
			go func() {
				defer w.Stop()
				for ev := range w.ResultChan() {
					if ev.Type == watch.Added || ev.Type == watch.Modified {
						cv.observe(m, idx, ev.Object)
					}
				}
			}()
		}
	}
	return cv
}

func (cv *convergence) observe(member string, idx int, o any) {
	var name string
	switch x := o.(type) {
	case *mcsv1beta1.ServiceImport:
		if len(x.Spec.IPs) == 0 {
			return
		}
		name = x.Name
	case *discoveryv1.EndpointSlice:
		if len(x.Endpoints) == 0 {
			return
		}
		name = x.Labels[mcsv1beta1.LabelServiceName]
	default:
		return
	}
	now := time.Now()
	cv.mu.Lock()
	defer cv.mu.Unlock()
	t := cv.seen[member][name]
	if t[idx].IsZero() {
		t[idx] = now
		cv.seen[member][name] = t
	}
}

// latency is the time from start until name converged in every member, false if not yet.
func (cv *convergence) latency(name string, start time.Time) (time.Duration, bool) {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	var last time.Time
	for _, byName := range cv.seen {
		t := byName[name]
		if t[0].IsZero() || t[1].IsZero() {
			return 0, false
		}
		for _, x := range t {
			if x.After(last) {
				last = x
			}
		}
	}
	return last.Sub(start), true
}

// measure exports n NodePort Services (from member-1 and member-2 in turn),
// one every interval (all at once when 0), and returns each one's
// convergence in milliseconds.
func measure(b *testing.B, n int, interval time.Duration) []float64 {
	ns := sharedNamespace(b)
	cv := watchConvergence(b, ns)
	defer cv.cancel()
	exporters := []string{"member-1", "member-2"}
	for i := range n {
		createService(b, exporters[i%2], ns, fmt.Sprintf("bench-%03d", i), nodePort())
	}
	time.Sleep(time.Second) // the member controllers and leaders are done with the Services
	starts := make([]time.Time, n)
	for i := range n {
		starts[i] = time.Now()
		e := &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("bench-%03d", i)}}
		if err := cl(b, exporters[i%2]).Create(bg, e); err != nil {
			b.Fatal(err)
		}
		time.Sleep(interval)
	}
	out := make([]float64, n)
	deadline := time.Now().Add(3 * time.Minute)
	for i := 0; i < n; {
		d, ok := cv.latency(fmt.Sprintf("bench-%03d", i), starts[i])
		if ok {
			out[i] = float64(d.Microseconds()) / 1000
			i++
			continue
		}
		if time.Now().After(deadline) {
			b.Fatalf("bench-%03d did not converge in every member within 3 minutes", i)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return out
}

func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// BenchmarkConvergence measures, at 3 members, the time from a
// ServiceExport's creation to its ServiceImport (with IP) and
// EndpointSlices in every member, for 100 Services exported one every
// 100 ms, then 100 at once. Run it with
//
//	go test ./test/e2e/services -run '^$' -bench Convergence -benchtime 1x
//
// ANTREAPLUS_BENCH_SERVICES changes the count; ANTREAPLUS_BENCH_JSON names a JSON file to write.
func BenchmarkConvergence(b *testing.B) {
	federation(b)
	n := 100
	if v, err := strconv.Atoi(os.Getenv("ANTREAPLUS_BENCH_SERVICES")); err == nil && v > 0 {
		n = v
	}
	var figures []benchtable.Figure
	for _, mode := range []struct {
		name     string
		interval time.Duration
	}{{"one every 100ms", 100 * time.Millisecond}, {"all at once", 0}} {
		runs := measure(b, n, mode.interval)
		sorted := append([]float64(nil), runs...)
		sort.Float64s(sorted)
		f := benchtable.Summarize(fmt.Sprintf("convergence, %d exports %s, %d members", n, mode.name, len(clusters.Names)), "ms", runs)
		figures = append(figures, f,
			benchtable.Figure{Name: "  p50", Unit: "ms", Median: percentile(sorted, 0.5), Min: percentile(sorted, 0.5), Max: percentile(sorted, 0.5)},
			benchtable.Figure{Name: "  p99", Unit: "ms", Median: percentile(sorted, 0.99), Min: percentile(sorted, 0.99), Max: percentile(sorted, 0.99)})
		b.ReportMetric(percentile(sorted, 0.5), "p50-ms/"+fmt.Sprint(mode.interval))
		b.ReportMetric(percentile(sorted, 0.99), "p99-ms/"+fmt.Sprint(mode.interval))
	}
	benchtable.Print(os.Stdout, "Federated Service convergence (export -> import + slices in every member)", figures)
	settings := map[string]any{"members": len(clusters.Names), "supervisors": nSupervisors, "services": n}
	if err := benchtable.WriteJSON(os.Getenv("ANTREAPLUS_BENCH_JSON"), "services-convergence", settings, figures); err != nil {
		b.Fatal(err)
	}
}
