package budget

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

var (
	limit = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "antreaplus_federation_reconcile_budget_limit",
		Help: "Reconciles this supervisor runs at once over every member it leads (0: no limit).",
	})
	running = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "antreaplus_federation_reconciles_running",
		Help: "Reconciles running now over every member this supervisor leads.",
	})
	lateRenewals = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "antreaplus_federation_renewals_late",
		Help: "Lease renewals of this supervisor in flight longer than the budget's late threshold; while any is, reconciles start only within the floor.",
	})
	lateTotal = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "antreaplus_federation_renewals_late_total",
		Help: "Lease renewals of this supervisor that were in flight longer than the budget's late threshold.",
	})
	waited = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "antreaplus_federation_reconcile_budget_wait_seconds",
		Help:    "How long reconciles that could not start at once waited for the budget.",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 8),
	})
)

// RegisterMetrics registers the budget's metrics on reg; registering them
// again is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	return metricsreg.Register(reg, limit, running, lateRenewals, lateTotal, waited)
}
