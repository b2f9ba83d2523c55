package metricstest_test

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
	"antreaplus.io/antreaplus/test/metricstest"
)

var writes = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "antreaplus", Name: "example_writes_total",
	Help: "Writes to the API server, by verb."}, []string{"verb"})

// registerMetrics is a program's registration of its packages' metrics.
func registerMetrics(reg prometheus.Registerer) error {
	return metricsreg.Register(reg, writes)
}

// The metrics a program registers, one line each with name, help and
// labels, for a test to compare with what dashboards expect.
func ExampleRegistered() {
	descs, err := metricstest.Registered(registerMetrics)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range descs {
		fmt.Println(d)
	}
	// Output:
	// Desc{fqName: "antreaplus_example_writes_total", help: "Writes to the API server, by verb.", constLabels: {}, variableLabels: {verb}}
}
