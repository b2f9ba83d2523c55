package entityimport

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

var (
	reconciles = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_entityimport_reconciles_total",
		Help: "Reconciles of the RemoteEntities of one Namespace from one source member in a led member, by result (ok, error, fenced).",
	}, []string{"member", "result"})
	reconcileSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "antreaplus_entityimport_reconcile_seconds",
		Help:    "Duration of the reconcile of one Namespace from one source member, writes included.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
	}, []string{"member"})
	writes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_entityimport_writes_total",
		Help: "Writes into led members, by kind and verb (create, update, delete).",
	}, []string{"member", "kind", "verb"})
	fencedWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_entityimport_fenced_writes_total",
		Help: "Writes refused because the election no longer allowed them.",
	}, []string{"member"})
	remoteEntitiesGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_entityimport_remote_entities",
		Help: "RemoteEntities managed in a led member (refreshed every resync).",
	}, []string{"member"})
	sourcesGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_entityimport_sources",
		Help: "Members seen by a led member's controller, by state: live (read), kept (not readable: last import kept), withdrawn (unreachable past the grace).",
	}, []string{"member", "state"})
)

// RegisterMetrics registers the controller's metrics on reg; registering
// them again is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	return metricsreg.Register(reg, reconciles, reconcileSeconds, writes, fencedWrites, remoteEntitiesGauge, sourcesGauge)
}

// forgetMember drops a member's gauges when this manager stops leading it.
func forgetMember(member string) {
	remoteEntitiesGauge.DeleteLabelValues(member)
	for _, s := range sources.States() {
		sourcesGauge.DeleteLabelValues(member, s.String())
	}
}
