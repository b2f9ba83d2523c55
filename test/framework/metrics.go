package framework

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// CounterValue is the value of the counter name whose label has value in
// g (e.g. controller-runtime's metrics.Registry), 0 when it has none yet.
func CounterValue(t testing.TB, g prometheus.Gatherer, name, label, value string) float64 {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
