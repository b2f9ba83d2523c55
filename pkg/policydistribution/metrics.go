package policydistribution

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

// Metrics are the distribution's Prometheus metrics, all prefixed
// antreaplus_policydistribution_.
type Metrics struct {
	// ConnectedConsumers counts open watch streams, by kind (Agent,
	// Agentless).
	ConnectedConsumers *prometheus.GaugeVec
	// Events counts events written to consumers, by type (Sync, Update,
	// Bookmark): the pushes.
	Events *prometheus.CounterVec
	// EventBytes counts the bytes of the events written.
	EventBytes prometheus.Counter
	// Watches counts watch requests, by outcome (resumed, sync,
	// not_ready, unauthenticated, forbidden).
	Watches *prometheus.CounterVec
	// PushLag is the time from the publication of a change to its write
	// to a consumer.
	PushLag prometheus.Histogram
	// RealizationLag is the time from the publication of a change to an
	// agent's report that it enforces it.
	RealizationLag prometheus.Histogram
	// CompileSeconds is the time to compile and publish one batch of
	// changes of API objects.
	CompileSeconds prometheus.Histogram
	// Generation is the newest generation published.
	Generation prometheus.Gauge
	// Reports counts reports, by result: ok and apply_error (agents),
	// agentless and agentless_findings (the agentless consumer).
	Reports *prometheus.CounterVec
}

// NewMetrics creates the metrics of one distribution (its feeder and its
// server), unregistered: RegisterMetrics registers them.
func NewMetrics() *Metrics {
	lagBuckets := []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}
	m := &Metrics{
		ConnectedConsumers: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "antreaplus_policydistribution_connected_consumers", Help: "Open watch streams, by consumer kind."}, []string{"kind"}),
		Events:             prometheus.NewCounterVec(prometheus.CounterOpts{Name: "antreaplus_policydistribution_events_total", Help: "Events written to consumers, by type."}, []string{"type"}),
		EventBytes:         prometheus.NewCounter(prometheus.CounterOpts{Name: "antreaplus_policydistribution_event_bytes_total", Help: "Bytes of the events written to consumers."}),
		Watches:            prometheus.NewCounterVec(prometheus.CounterOpts{Name: "antreaplus_policydistribution_watches_total", Help: "Watch requests, by outcome."}, []string{"outcome"}),
		PushLag:            prometheus.NewHistogram(prometheus.HistogramOpts{Name: "antreaplus_policydistribution_push_lag_seconds", Help: "Time from the publication of a change to its write to a consumer.", Buckets: lagBuckets}),
		RealizationLag:     prometheus.NewHistogram(prometheus.HistogramOpts{Name: "antreaplus_policydistribution_realization_lag_seconds", Help: "Time from the publication of a change to an agent's report that it enforces it.", Buckets: lagBuckets}),
		CompileSeconds:     prometheus.NewHistogram(prometheus.HistogramOpts{Name: "antreaplus_policydistribution_compile_seconds", Help: "Time to compile and publish one batch of API changes.", Buckets: lagBuckets}),
		Generation:         prometheus.NewGauge(prometheus.GaugeOpts{Name: "antreaplus_policydistribution_generation", Help: "The newest generation published."}),
		Reports:            prometheus.NewCounterVec(prometheus.CounterOpts{Name: "antreaplus_policydistribution_reports_total", Help: "Agent reports, by result."}, []string{"result"}),
	}
	return m
}

// agentsBehindDesc describes antreaplus_policydistribution_agents_behind.
var agentsBehindDesc = prometheus.NewDesc("antreaplus_policydistribution_agents_behind",
	"Connected agents that have not reported enforcing the newest change of their VM.", nil, nil)

// agentsBehind is the gauge of the connected agents of a server that have
// not reported enforcing the newest change of their VM, computed at every
// scrape.
type agentsBehind struct{ s *Server }

func (c agentsBehind) Describe(ch chan<- *prometheus.Desc) { ch <- agentsBehindDesc }

func (c agentsBehind) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(agentsBehindDesc, prometheus.GaugeValue, float64(c.s.AgentsBehind()))
}

// RegisterMetrics registers on reg the metrics m of a distribution and the
// gauge antreaplus_policydistribution_agents_behind of its server s.
// Registering the same again is not an error.
func RegisterMetrics(reg prometheus.Registerer, m *Metrics, s *Server) error {
	return metricsreg.Register(reg, m.ConnectedConsumers, m.Events, m.EventBytes, m.Watches, m.PushLag, m.RealizationLag,
		m.CompileSeconds, m.Generation, m.Reports, agentsBehind{s: s})
}
