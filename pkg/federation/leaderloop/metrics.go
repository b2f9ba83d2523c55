package leaderloop

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

// The metrics every leader controller shares, labelled by controller (its
// Name) as controller-runtime labels its controllers' metrics, and by
// member (the led member).
var (
	reconcilesVec = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_leader_controller_reconciles_total",
		Help: "Reconciles of a leader controller in a led member, by result (ok, error, fenced).",
	}, []string{"controller", "member", "result"})
	reconcileSecondsVec = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "antreaplus_leader_controller_reconcile_seconds",
		Help:    "Duration of one reconcile of a leader controller in a led member, writes included.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
	}, []string{"controller", "member"})
	writesVec = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_leader_controller_writes_total",
		Help: "Writes of a leader controller into a led member, by kind and verb (create, update, delete).",
	}, []string{"controller", "member", "kind", "verb"})
	fencedWritesVec = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_leader_controller_fenced_writes_total",
		Help: "Writes of a leader controller refused because the election no longer allowed them.",
	}, []string{"controller", "member"})
	sourcesVec = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_leader_controller_sources",
		Help: "Members a leader controller reads for a led member, by state: live (read), kept (not readable: last import kept), withdrawn (unreachable past the grace).",
	}, []string{"controller", "member", "state"})
)

// RegisterMetrics registers the leader controllers' shared metrics on reg;
// registering them again is not an error. Each controller's own
// RegisterMetrics calls it.
func RegisterMetrics(reg prometheus.Registerer) error {
	return metricsreg.Register(reg, reconcilesVec, reconcileSecondsVec, writesVec, fencedWritesVec, sourcesVec)
}

// Metrics are one controller's part of the shared metrics, the controller
// label set: each vector takes the member first.
type Metrics struct {
	// Reconciles counts reconciles by member and result (ok, error, fenced).
	Reconciles *prometheus.CounterVec
	// ReconcileSeconds observes their duration by member.
	ReconcileSeconds prometheus.ObserverVec
	// Writes counts the writes made, by member, kind and verb.
	Writes *prometheus.CounterVec
	// Fenced counts the writes the election refused, by member.
	Fenced *prometheus.CounterVec
	// Sources is the number of source members in each state, by member
	// and state (for sources.Options.Gauge).
	Sources *prometheus.GaugeVec
}

// MetricsFor is the part of the shared metrics of the controller called
// name (its manager.LeaderController Name).
func MetricsFor(name string) Metrics {
	l := prometheus.Labels{"controller": name}
	return Metrics{
		Reconciles:       reconcilesVec.MustCurryWith(l),
		ReconcileSeconds: reconcileSecondsVec.MustCurryWith(l),
		Writes:           writesVec.MustCurryWith(l),
		Fenced:           fencedWritesVec.MustCurryWith(l),
		Sources:          sourcesVec.MustCurryWith(l),
	}
}

// Forget drops the gauges of member, when the controller stops leading it.
func (m Metrics) Forget(member string, states ...string) {
	for _, s := range states {
		m.Sources.DeleteLabelValues(member, s)
	}
}
