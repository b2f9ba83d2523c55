package manager

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
	"antreaplus.io/antreaplus/internal/outage"
	"antreaplus.io/antreaplus/pkg/federation/budget"
	"antreaplus.io/antreaplus/pkg/federation/election"
)

var (
	sessionsGauge = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "antreaplus_federation_members", Help: "Members in this supervisor's registry.",
	})
	reachableGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_federation_member_reachable", Help: "1 while this manager reaches the member.",
	}, []string{"member"})
	exportsObserved = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_federation_member_exports", Help: "ServiceExports this manager sees in the member.",
	}, []string{"member"})
	statusWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federation_registry_status_writes_total", Help: "MemberCluster status updates, by result.",
	}, []string{"result"})
	leaseReads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federation_lease_reads_total",
		Help: "Reads of a member's leader Lease (and of another supervisor's manager Lease) by the election and the peer loop, by source: watch (no request) or api.",
	}, []string{"member", "source"})
	leaseWriteSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "antreaplus_federation_lease_write_seconds",
		Help: "The election's leader Lease writes (renewals, acquisitions, hand-overs) over every member, by phase (package reqtrace): " +
			"queued (call to connection: client rate limit, encoding, a connection or stream), sending (connection to request written), " +
			"answer (request written to the answer's first byte: the member's API server and etcd, and this process reading), " +
			"reading (first byte to decoded answer), total. A late renewal is late in one of them.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2, 4, 8},
	}, []string{"phase"})
	sessionsStoppingInBackground = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "antreaplus_federation_sessions_stopping",
		Help: "Ended member sessions whose informers or watches have not stopped yet (left to end in the background after the elector stopped); more than zero for long is a leak worth a goroutine dump.",
	})
)

// observeLeaseWrite records a Lease write's phases.
func observeLeaseWrite(phases map[string]time.Duration) {
	for phase, d := range phases {
		leaseWriteSeconds.WithLabelValues(phase).Observe(d.Seconds())
	}
}

// Sources of a Lease read.
const (
	leaseReadWatch = "watch"
	leaseReadAPI   = "api"
)

// RegisterMetrics registers on reg the manager's metrics and those of what
// it runs inside itself: the election and the outage renewals of its
// sessions. Registering them again is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	return errors.Join(
		metricsreg.Register(reg, sessionsGauge, reachableGauge, exportsObserved, statusWrites, leaseReads, sessionsStoppingInBackground, leaseWriteSeconds),
		election.RegisterMetrics(reg),
		budget.RegisterMetrics(reg),
		outage.RegisterMetrics(reg))
}
