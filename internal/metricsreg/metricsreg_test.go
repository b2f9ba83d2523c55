package metricsreg

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// funcCollector is not comparable (it holds a func): registering it again
// must fail cleanly, not panic on ==.
type funcCollector struct {
	desc *prometheus.Desc
	f    func() float64
}

func (c funcCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }
func (c funcCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, c.f())
}

func TestRegister(t *testing.T) {
	counter := func(name string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: "A counter."})
	}
	a, b := counter("a_total"), counter("b_total")
	uncomparable := funcCollector{desc: prometheus.NewDesc("c", "A gauge.", nil, nil), f: func() float64 { return 1 }}
	reg := prometheus.NewRegistry()
	if err := Register(reg, a, b, uncomparable); err != nil {
		t.Fatalf("first registration: %v", err)
	}
	if err := Register(reg, a, b); err != nil {
		t.Errorf("registering the same collectors again: %v", err)
	}
	if err := Register(reg, counter("a_total")); err == nil {
		t.Error("another collector named a_total: registered; want an error")
	}
	if err := Register(reg, uncomparable); err == nil {
		t.Error("an uncomparable collector again: registered; want an error")
	}
}
