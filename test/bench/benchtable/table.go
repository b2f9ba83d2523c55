// Package benchtable summarizes repeated measurements (median, min, max),
// prints them as a table and writes them as JSON, for the project's
// benchmark programs under test/bench.
package benchtable

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// Figure is one measured quantity over its runs.
type Figure struct {
	Name   string    `json:"name"`
	Unit   string    `json:"unit"`
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	Runs   []float64 `json:"runs"`
}

// Summarize makes a Figure of the runs.
func Summarize(name, unit string, runs []float64) Figure {
	if len(runs) == 0 {
		return Figure{Name: name, Unit: unit}
	}
	s := append([]float64(nil), runs...)
	sort.Float64s(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Figure{Name: name, Unit: unit, Median: med, Min: s[0], Max: s[len(s)-1], Runs: runs}
}

// Ratios divides a by b run by run.
func Ratios(a, b []float64) []float64 {
	out := make([]float64, 0, len(a))
	for i := range a {
		if i < len(b) && b[i] != 0 {
			out = append(out, a[i]/b[i])
		}
	}
	return out
}

// Print writes the figures as a table under a title.
func Print(w io.Writer, title string, figures []Figure) {
	fmt.Fprintf(w, "\n%-56s %10s %10s %10s  %s\n", title, "median", "min", "max", "unit")
	for _, f := range figures {
		fmt.Fprintf(w, "%-56s %10.2f %10.2f %10.2f  %s\n", f.Name, f.Median, f.Min, f.Max, f.Unit)
	}
}

// WriteJSON writes the figures, with free-form settings, to path (nothing when path is empty).
func WriteJSON(path, benchmark string, settings map[string]any, figures []Figure) error {
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(map[string]any{"benchmark": benchmark, "settings": settings, "figures": figures}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o644)
}

// Percentile is the nearest-rank percentile p (0..1) of v; 0 when v is empty.
func Percentile(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	i := int(p*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

// WithPercentiles is the Figure of the runs, in unit, followed by rows
// of their p50 and p99.
func WithPercentiles(name, unit string, runs []float64) []Figure {
	p50, p99 := Percentile(runs, 0.5), Percentile(runs, 0.99)
	return []Figure{Summarize(name, unit, runs),
		{Name: "    p50", Unit: unit, Median: p50, Min: p50, Max: p50},
		{Name: "    p99", Unit: unit, Median: p99, Min: p99, Max: p99}}
}

// Ratio is a/b, 0 when b is 0.
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
