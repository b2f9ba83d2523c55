package main

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/controlplane"
	"antreaplus.io/antreaplus/pkg/policydistribution/livetrace"
	"antreaplus.io/antreaplus/pkg/policydistribution/policystats"
	"antreaplus.io/antreaplus/test/datadriven"
	"antreaplus.io/antreaplus/test/metricstest"
)

// TestRegisterMetrics checks what the program registers against
// testdata/metrics.txt, for a distribution as controlplane.Setup builds it.
func TestRegisterMetrics(t *testing.T) {
	datadriven.RunTest(t, "testdata/metrics.txt", func(t *testing.T, d *datadriven.TestData) []string {
		t.Helper()
		if d.Command != "register" {
			t.Fatalf("unknown command %q", d.Command)
		}
		m := policydistribution.NewMetrics()
		cp := &controlplane.ControlPlane{Metrics: m, Stats: policystats.NewMetrics(), Traces: livetrace.NewMetrics(),
			Server: policydistribution.NewServer(policydistribution.NewHub(), policydistribution.ServerOptions{Metrics: m})}
		descs, err := metricstest.Registered(func(reg prometheus.Registerer) error { return registerMetrics(reg, cp) })
		if err != nil {
			t.Fatal(err)
		}
		return descs
	})
}
