package outage

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

var renewals = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "antreaplus_outage_renewals_total",
	Help: "Times a component's informers were replaced because its API server answered again after an outage.",
}, []string{"component"})

var kept = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "antreaplus_outage_informers_kept_total",
	Help: "Outages after which a component kept its informers: its probes had failed, but its informers' lists and watches had not (the API server was slow, not down).",
}, []string{"component"})

// RegisterMetrics registers the renewals and kept counters on reg, the registry the
// program serves; registering it again is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	return metricsreg.Register(reg, renewals, kept)
}
