package dnsendpoints

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/pkg/federation/leaderloop"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

// metrics are the controller's part of the metrics every leader
// controller shares (leaderloop.MetricsFor).
var metrics = leaderloop.MetricsFor(controllerName)

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
)

// RegisterMetrics registers the controller's metrics on reg; registering
// them again is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	if err := leaderloop.RegisterMetrics(reg); err != nil {
		return err
	}
	return metricsreg.Register(reg, publishedGauge, apiMissing, blocked)
}

// forgetMember drops a member's gauges when this manager stops leading it.
func forgetMember(member string) {
	publishedGauge.DeleteLabelValues(member)
	apiMissing.DeleteLabelValues(member)
	blocked.DeleteLabelValues(member)
}
