package importcache

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/outage"
)

// RegisterMetrics registers on reg the metrics of what a Watcher runs: the
// outage renewals of its informers (component dns-importcache).
// Registering them again is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	return outage.RegisterMetrics(reg)
}
