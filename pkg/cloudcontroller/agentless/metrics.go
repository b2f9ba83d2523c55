package agentless

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

// Metrics are the syncer's Prometheus metrics, prefixed
// antreaplus_agentless_.
type Metrics struct {
	// Rounds counts sync rounds, by trigger (change, resync).
	Rounds *prometheus.CounterVec
	// RoundSeconds is the time of one round, every VPC included.
	RoundSeconds prometheus.Histogram
	// VPCSyncs counts syncs of one VPC, by result (ok, error,
	// not_supported, no_provider).
	VPCSyncs *prometheus.CounterVec
	// CloudWrites counts the mutating cloud API calls of the syncs.
	CloudWrites prometheus.Counter
	// Endpoints is the number of agentless enforcement points in the view.
	Endpoints prometheus.Gauge
	// Findings is the number of findings of the last round, by severity
	// (Unrealized, Approximated).
	Findings *prometheus.GaugeVec
	// Generation is the generation of the view the last round enforced.
	Generation prometheus.Gauge
	// Connected is 1 while the watch of the policy controller is up.
	Connected prometheus.Gauge
	// Reports counts reports to the policy controller, by result (ok,
	// error).
	Reports *prometheus.CounterVec
}

// NewMetrics creates the metrics of one syncer, unregistered:
// RegisterMetrics registers them.
func NewMetrics() *Metrics {
	m := &Metrics{
		Rounds: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "antreaplus_agentless_rounds_total",
			Help: "Sync rounds of every agentless VPC, by trigger (change, resync)."}, []string{"trigger"}),
		RoundSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "antreaplus_agentless_round_seconds",
			Help: "Time of one sync round.", Buckets: prometheus.ExponentialBuckets(0.01, 2.5, 10)}),
		VPCSyncs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "antreaplus_agentless_vpc_syncs_total",
			Help: "Security group syncs of one VPC, by result (ok, error, not_supported, no_provider)."}, []string{"result"}),
		CloudWrites: prometheus.NewCounter(prometheus.CounterOpts{Name: "antreaplus_agentless_cloud_writes_total",
			Help: "Mutating cloud API calls made to sync security groups."}),
		Endpoints: prometheus.NewGauge(prometheus.GaugeOpts{Name: "antreaplus_agentless_endpoints",
			Help: "Agentless enforcement points in the view."}),
		Findings: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "antreaplus_agentless_findings",
			Help: "Parts of the rules not enforced as written in the last round, by severity."}, []string{"severity"}),
		Generation: prometheus.NewGauge(prometheus.GaugeOpts{Name: "antreaplus_agentless_generation",
			Help: "Generation of the rules the last round enforced."}),
		Connected: prometheus.NewGauge(prometheus.GaugeOpts{Name: "antreaplus_agentless_connected",
			Help: "1 while the watch of the policy controller is up."}),
		Reports: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "antreaplus_agentless_reports_total",
			Help: "Reports sent to the policy controller, by result (ok, error)."}, []string{"result"}),
	}
	return m
}

// RegisterMetrics registers m on reg; registering m again is not an error.
func RegisterMetrics(reg prometheus.Registerer, m *Metrics) error {
	return metricsreg.Register(reg, m.Rounds, m.RoundSeconds, m.VPCSyncs, m.CloudWrites, m.Endpoints, m.Findings, m.Generation, m.Connected, m.Reports)
}
