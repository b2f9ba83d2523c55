package tenancy

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

var (
	ownedTenants = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_tenancy_owned_tenants", Help: "Tenants this replica holds the claim of and manages.",
	}, []string{"instance"})
	contendedTenants = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_tenancy_contended_tenants",
		Help: "Tenants this instance selects and plans for this replica that another instance holds: left alone, a configuration to fix.",
	}, []string{"instance"})
	overlappedTenants = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_tenancy_overlapped_tenants",
		Help: "Tenants this replica holds that another instance also selects, or that are claimed in another member.",
	}, []string{"instance"})
	liveReplicas = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_tenancy_live_replicas", Help: "Replicas of this instance whose heartbeat is current, as this replica sees them.",
	}, []string{"instance"})
	claimActions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_tenancy_claim_actions_total", Help: "Claim writes (Acquire, Renew, Release, Contend), by result.",
	}, []string{"instance", "action", "result"})
)

// RegisterMetrics registers the tenancy metrics on reg; registering them
// again is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	return metricsreg.Register(reg, ownedTenants, contendedTenants, overlappedTenants, liveReplicas, claimActions)
}
