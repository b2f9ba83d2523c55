package dnsforward

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

// Routes of a query, the label "route" of the metrics.
const (
	// RouteMember: a name of the federation zones, sent to the member's
	// DNS server.
	RouteMember = "member"
	// RouteUpstream: any other name, sent to the VM's previous resolvers.
	RouteUpstream = "upstream"
)

// Metrics are the forwarder's Prometheus metrics, all prefixed
// antreaplus_vmagent_dns_.
type Metrics struct {
	// Queries counts the queries answered, by route and response code
	// (NOERROR, NXDOMAIN, SERVFAIL...): SERVFAIL includes the queries no
	// server of the route answered.
	Queries *prometheus.CounterVec
	// ExchangeErrors counts the exchanges with a server of a route that
	// failed (timeout, refused, unreachable).
	ExchangeErrors *prometheus.CounterVec
	// Seconds is the time to answer a query, by route.
	Seconds *prometheus.HistogramVec
}

// NewMetrics creates the metrics of one forwarder, unregistered:
// RegisterMetrics registers them.
func NewMetrics() *Metrics {
	m := &Metrics{
		Queries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "antreaplus_vmagent_dns_queries_total", Help: "Queries answered by the VM agent's DNS forwarder, by route and response code."},
			[]string{"route", "rcode"}),
		ExchangeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "antreaplus_vmagent_dns_exchange_errors_total", Help: "Failed exchanges with a server of a route (timeout, refused, unreachable)."},
			[]string{"route"}),
		Seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "antreaplus_vmagent_dns_query_seconds", Help: "Time to answer a query, by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}},
			[]string{"route"}),
	}
	return m
}

// RegisterMetrics registers m on reg; registering m again is not an error.
func RegisterMetrics(reg prometheus.Registerer, m *Metrics) error {
	return metricsreg.Register(reg, m.Queries, m.ExchangeErrors, m.Seconds)
}
