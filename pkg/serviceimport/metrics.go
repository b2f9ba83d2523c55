package serviceimport

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/pkg/federation/leaderloop"

	"antreaplus.io/antreaplus/internal/metricsreg"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// metrics are the controller's part of the metrics every leader
// controller shares (leaderloop.MetricsFor).
var metrics = leaderloop.MetricsFor(controllerName)

var (
	importsGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_serviceimport_imports",
		Help: "ServiceImports managed in a led member (refreshed every resync).",
	}, []string{"member"})
)

// RegisterMetrics registers the controller's metrics on reg; registering
// them again is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	if err := leaderloop.RegisterMetrics(reg); err != nil {
		return err
	}
	return metricsreg.Register(reg, importsGauge)
}

// forgetMember drops a member's gauges when this manager stops leading it.
func forgetMember(member string) {
	importsGauge.DeleteLabelValues(member)
	for _, s := range sources.States() {
		metrics.Forget(member, s.String())
	}
}
