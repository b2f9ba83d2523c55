package outage

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

var renewals = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "antreaplus_outage_renewals_total",
	Help: "Times a component's informers were replaced because its API server answered again after an outage.",
}, []string{"component"})

// RegisterMetrics registers the renewals counter on reg, the registry the
// program serves; registering it again is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	return metricsreg.Register(reg, renewals)
}
