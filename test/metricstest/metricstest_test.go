package metricstest

import (
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

func TestRegistered(t *testing.T) {
	a := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "a_total", Help: "As."}, []string{"kind"})
	b := prometheus.NewGauge(prometheus.GaugeOpts{Name: "b", Help: "Bs."})
	got, err := Registered(func(reg prometheus.Registerer) error { return metricsreg.Register(reg, b, a) })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`Desc{fqName: "a_total", help: "As.", constLabels: {}, variableLabels: {kind}}`,
		`Desc{fqName: "b", help: "Bs.", constLabels: {}, variableLabels: {}}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// Registering new collectors every time fails the second time.
	_, err = Registered(func(reg prometheus.Registerer) error {
		return metricsreg.Register(reg, prometheus.NewGauge(prometheus.GaugeOpts{Name: "b", Help: "Bs."}))
	})
	if err == nil {
		t.Error("a registration that cannot be repeated: no error")
	}
}
