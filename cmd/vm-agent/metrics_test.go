package main

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/test/datadriven"
	"antreaplus.io/antreaplus/test/metricstest"
)

// TestRegisterMetrics checks what the program registers against
// testdata/metrics.txt: "register dns" with the DNS forwarder on.
func TestRegisterMetrics(t *testing.T) {
	datadriven.RunTest(t, "testdata/metrics.txt", func(t *testing.T, d *datadriven.TestData) []string {
		t.Helper()
		f := &flags{dnsListen: "127.0.0.153:53", dnsZones: "clusterset.local,cluster.local"}
		switch d.Command {
		case "register":
		case "register dns":
			f.dns = true
		default:
			t.Fatalf("unknown command %q", d.Command)
		}
		dns, err := dnsOptions(f)
		if err != nil {
			t.Fatal(err)
		}
		descs, err := metricstest.Registered(func(reg prometheus.Registerer) error { return registerMetrics(reg, dns) })
		if err != nil {
			t.Fatal(err)
		}
		return descs
	})
}
