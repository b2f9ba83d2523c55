package membershipstatus

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	writes = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "antreaplus_membership_status_writes_total", Help: "ClusterMembership status writes made as leader.",
	})
	fencedWrites = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "antreaplus_membership_status_fenced_total", Help: "Writes refused because the election no longer allowed them.",
	})
)

// RegisterMetrics adds the controller's metrics to controller-runtime's registry.
func RegisterMetrics() { metrics.Registry.MustRegister(writes, fencedWrites) }
