package main

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/pkg/cloudcontroller/agentless"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/apiwrites"
	"antreaplus.io/antreaplus/test/datadriven"
	"antreaplus.io/antreaplus/test/metricstest"
)

// TestRegisterMetrics checks what the program registers against
// testdata/metrics.txt: "register agentless" with agentless enforcement on.
func TestRegisterMetrics(t *testing.T) {
	datadriven.RunTest(t, "testdata/metrics.txt", func(t *testing.T, d *datadriven.TestData) []string {
		t.Helper()
		var sync *agentless.Options
		switch d.Command {
		case "register":
		case "register agentless":
			sync = &agentless.Options{Metrics: agentless.NewMetrics()}
		default:
			t.Fatalf("unknown command %q", d.Command)
		}
		writes := apiwrites.NewCounter()
		descs, err := metricstest.Registered(func(reg prometheus.Registerer) error { return registerMetrics(reg, writes, sync) })
		if err != nil {
			t.Fatal(err)
		}
		return descs
	})
}
