package main

import (
	"testing"

	"antreaplus.io/antreaplus/test/datadriven"
	"antreaplus.io/antreaplus/test/metricstest"
)

// TestRegisterMetrics checks what the program registers against
// testdata/metrics.txt.
func TestRegisterMetrics(t *testing.T) {
	datadriven.RunTest(t, "testdata/metrics.txt", func(t *testing.T, d *datadriven.TestData) []string {
		t.Helper()
		if d.Command != "register" {
			t.Fatalf("unknown command %q", d.Command)
		}
		descs, err := metricstest.Registered(registerMetrics)
		if err != nil {
			t.Fatal(err)
		}
		return descs
	})
}
