package console

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

// metrics are the console's own: how its views are computed and followed.
type metrics struct {
	rebuilds       *prometheus.CounterVec
	rebuildSeconds *prometheus.HistogramVec
	followers      *prometheus.GaugeVec
	requests       *prometheus.CounterVec
}

func newMetrics() *metrics {
	return &metrics{
		rebuilds: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "antreaplus_console_view_rebuilds_total",
			Help: "Views computed again after a change of their members, by view and result (changed, unchanged, error)."}, []string{"view", "result"}),
		rebuildSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "antreaplus_console_view_rebuild_seconds",
			Help: "Time to compute a view and its JSON.", Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14)}, []string{"view"}),
		followers: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "antreaplus_console_followers",
			Help: "Browsers following a view (server-sent events), by view."}, []string{"view"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "antreaplus_console_requests_total",
			Help: "HTTP requests, by path kind and status code class."}, []string{"path", "code"}),
	}
}

// register registers the console's metrics on reg.
func (m *metrics) register(reg prometheus.Registerer) error {
	return metricsreg.Register(reg, m.rebuilds, m.rebuildSeconds, m.followers, m.requests)
}
