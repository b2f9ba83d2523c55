package metricsreg_test

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

var reconciles = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "example_reconciles_total", Help: "Reconciles, by result."}, []string{"result"})

// RegisterMetrics is what a package offers the programs that run it: its
// collectors, registered on the registry the program serves.
func RegisterMetrics(reg prometheus.Registerer) error {
	return metricsreg.Register(reg, reconciles)
}

// A program registers a package's metrics on its own registry; doing it
// again (a reload, a second setup) is not an error, and another collector
// of the same name is.
func ExampleRegister() {
	reg := prometheus.NewRegistry()
	fmt.Println(RegisterMetrics(reg))
	fmt.Println(RegisterMetrics(reg))
	other := prometheus.NewCounter(prometheus.CounterOpts{Name: "example_reconciles_total", Help: "Another."})
	fmt.Println(metricsreg.Register(reg, other) != nil)
	// Output:
	// <nil>
	// <nil>
	// true
}
