package tenantoverlaps

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/pkg/federation/leaderloop"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

// metrics are the controller's part of the metrics every leader
// controller shares (leaderloop.MetricsFor).
var metrics = leaderloop.MetricsFor(controllerName)

var (
	overlapsGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_federation_tenant_overlaps",
		Help: "Tenants a led member claims that another member claims too (the keys of its ConfigMap antreaplus-tenant-overlaps).",
	}, []string{"member"})
)

// RegisterMetrics registers the controller's metrics on reg; registering
// them again is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	if err := leaderloop.RegisterMetrics(reg); err != nil {
		return err
	}
	return metricsreg.Register(reg, overlapsGauge)
}

// forgetMember drops a member's gauge when this manager stops leading it.
func forgetMember(member string) { overlapsGauge.DeleteLabelValues(member) }
