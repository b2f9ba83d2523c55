package dnsendpoints

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

var (
	publishedGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_federation_dnsendpoints",
		Help: "DNSEndpoints the federation keeps in a led member for ExternalDNS: one per federated Service with records to publish.",
	}, []string{"member"})
	apiMissing = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_federation_dnsendpoints_api_missing",
		Help: "1 when a led member asks for external DNS (ClusterMembership spec.externalDNS) but serves no DNSEndpoint API (ExternalDNS's CRD is not installed).",
	}, []string{"member"})
	blocked = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_federation_dnsendpoints_blocked",
		Help: "Federated Services whose DNSEndpoint name is taken by an object the federation did not write (left alone, not published).",
	}, []string{"member"})
	reconciles = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federation_dnsendpoint_reconciles_total",
		Help: "Reconciles of a federated Service's DNSEndpoint in a led member, by result (ok, error, fenced).",
	}, []string{"member", "result"})
	reconcileSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "antreaplus_federation_dnsendpoint_reconcile_seconds",
		Help:    "Duration of the reconcile of a federated Service's DNSEndpoint, writes included.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
	}, []string{"member"})
	writes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federation_dnsendpoint_writes_total",
		Help: "Writes into led members by the DNSEndpoints controller, by kind (DNSEndpoint, Event) and verb (create, update, delete).",
	}, []string{"member", "kind", "verb"})
	fencedWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federation_dnsendpoint_fenced_writes_total",
		Help: "DNSEndpoint writes refused because the election no longer allowed them.",
	}, []string{"member"})
)

// RegisterMetrics registers the controller's metrics on reg; registering
// them again is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	return metricsreg.Register(reg, publishedGauge, apiMissing, blocked, reconciles, reconcileSeconds, writes, fencedWrites)
}

// forgetMember drops a member's gauges when this manager stops leading it.
func forgetMember(member string) {
	publishedGauge.DeleteLabelValues(member)
	apiMissing.DeleteLabelValues(member)
	blocked.DeleteLabelValues(member)
}
