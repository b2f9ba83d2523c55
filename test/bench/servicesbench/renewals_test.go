package main

import (
	"math"
	"testing"
)

func TestHistogramQuantiles(t *testing.T) {
	raw := []byte(`# HELP x_seconds x
# TYPE x_seconds histogram
x_seconds_bucket{phase="total",le="0.1"} 50
x_seconds_bucket{phase="total",le="0.5"} 90
x_seconds_bucket{phase="total",le="2"} 99
x_seconds_bucket{phase="total",le="+Inf"} 100
x_seconds_sum{phase="total"} 30
x_seconds_count{phase="total"} 100
x_seconds_bucket{phase="answer",le="0.1"} 10
x_seconds_bucket{phase="answer",le="0.5"} 10
x_seconds_bucket{phase="answer",le="2"} 10
x_seconds_bucket{phase="answer",le="+Inf"} 10
x_seconds_sum{phase="answer"} 0.5
x_seconds_count{phase="answer"} 10
`)
	fs, err := parseMetrics(raw)
	if err != nil {
		t.Fatal(err)
	}
	hs := fs.histogramsOf("x_seconds", func(l map[string]string) (string, bool) { return l["phase"], l["phase"] == "total" })
	if len(hs) != 1 {
		t.Fatalf("histograms %v, want only total's", hs)
	}
	h := hs["total"]
	for _, tc := range []struct {
		q, want float64
	}{
		{0.5, 0.1},   // the 50th observation is the first bucket's last
		{0.25, 0.05}, // halfway into the first bucket
		{0.7, 0.3},   // halfway into the second
		{0.99, 2},    // the third bucket's last
		{0.995, 2},   // above the highest finite bound: that bound
	} {
		if got := h.quantile(tc.q); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("quantile(%v) = %v, want %v", tc.q, got, tc.want)
		}
	}
	if got := h.above(0.5); got != 10 {
		t.Errorf("above 0.5 s: %v, want 10", got)
	}
	if got := h.above(2); got != 1 {
		t.Errorf("above 2 s: %v, want 1", got)
	}
	// What happened between two snapshots: the later minus the earlier.
	later := h.add(h)
	d := later.sub(h)
	if d.count != 100 || d.quantile(0.7) != h.quantile(0.7) {
		t.Errorf("later - earlier: %d observations, p70 %v; want 100, %v", int(d.count), d.quantile(0.7), h.quantile(0.7))
	}
	if q := (histo{}).quantile(0.5); !math.IsNaN(q) {
		t.Errorf("an empty histogram's median: %v, want NaN", q)
	}
	if hs := fs.histogramsOf("absent_seconds", func(map[string]string) (string, bool) { return "", true }); len(hs) != 0 {
		t.Errorf("an absent family: %v; want none", hs)
	}
}

func TestCountersByLabel(t *testing.T) {
	raw := []byte(`# TYPE downs_total counter
downs_total{member="a",reason="HandedOver"} 2
downs_total{member="b",reason="HandedOver"} 1
downs_total{member="b",reason="NotRenewed"} 4
`)
	fs, err := parseMetrics(raw)
	if err != nil {
		t.Fatal(err)
	}
	got := fs.countersOf("downs_total", "reason")
	if len(got) != 2 || got["HandedOver"] != 3 || got["NotRenewed"] != 4 {
		t.Errorf("by reason %v, want HandedOver 3, NotRenewed 4", got)
	}
}
