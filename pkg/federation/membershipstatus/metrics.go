package membershipstatus

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

var (
	writes = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "antreaplus_membership_status_writes_total", Help: "ClusterMembership status writes made as leader.",
	})
	fencedWrites = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "antreaplus_membership_status_fenced_total", Help: "Writes refused because the election no longer allowed them.",
	})
)

// RegisterMetrics registers the controller's metrics on reg; registering
// them again is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	return metricsreg.Register(reg, writes, fencedWrites)
}
