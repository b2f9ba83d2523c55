package manager

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"antreaplus.io/antreaplus/pkg/federation/election"
)

var (
	sessionsGauge = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "antreaplus_federation_members", Help: "Members in this supervisor's registry.",
	})
	reachableGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_federation_member_reachable", Help: "1 while this manager reaches the member.",
	}, []string{"member"})
	exportsObserved = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_federation_member_exports", Help: "ServiceExports this manager sees in the member.",
	}, []string{"member"})
	statusWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federation_registry_status_writes_total", Help: "MemberCluster status updates, by result.",
	}, []string{"result"})
)

// RegisterMetrics adds the manager's and the election's metrics to controller-runtime's registry.
func RegisterMetrics() {
	metrics.Registry.MustRegister(sessionsGauge, reachableGauge, exportsObserved, statusWrites)
	election.Register()
}
