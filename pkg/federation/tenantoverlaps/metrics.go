package tenantoverlaps

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

var (
	overlapsGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_federation_tenant_overlaps",
		Help: "Tenants a led member claims that another member claims too (the keys of its ConfigMap antreaplus-tenant-overlaps).",
	}, []string{"member"})
	reconciles = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federation_tenant_overlap_reconciles_total",
		Help: "Reconciles of a led member's tenant overlaps, by result (ok, error, fenced).",
	}, []string{"member", "result"})
	reconcileSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "antreaplus_federation_tenant_overlap_reconcile_seconds",
		Help:    "Duration of the reconcile of a led member's tenant overlaps, writes included.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
	}, []string{"member"})
	writes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federation_tenant_overlap_writes_total",
		Help: "Writes of the tenant overlaps into led members, by kind (ConfigMap, Event) and verb (create, update, delete).",
	}, []string{"member", "kind", "verb"})
	fencedWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federation_tenant_overlap_fenced_writes_total",
		Help: "Writes of the tenant overlaps refused because the election no longer allowed them.",
	}, []string{"member"})
)

// RegisterMetrics registers the controller's metrics on reg; registering
// them again is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	return metricsreg.Register(reg, overlapsGauge, reconciles, reconcileSeconds, writes, fencedWrites)
}

// forgetMember drops a member's gauge when this manager stops leading it.
func forgetMember(member string) { overlapsGauge.DeleteLabelValues(member) }
