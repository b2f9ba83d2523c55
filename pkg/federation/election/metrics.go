package election

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

var (
	leading = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "antreaplus_federation_leading", Help: "1 while this manager leads the member.",
	}, []string{"member"})
	leaderTransitions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federation_leadership_acquired_total", Help: "Times this manager started leading the member.",
	}, []string{"member"})
	handovers = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federation_handovers_total", Help: "Members this manager handed over to their preferred supervisor.",
	}, []string{"member"})
	handoverRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federation_handover_requests_total", Help: "Hand-overs this manager asked for as preferred supervisor.",
	}, []string{"member"})
	stepDowns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federation_stepdowns_total",
		Help: "Times this manager stopped leading the member, by reason: NotRenewed (no renewal within the give-up time, two lease durations), Taken (another supervisor holds the Lease), HandedOver, Released.",
	}, []string{"member", "reason"})
	lateRenewals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federation_late_renewals_total",
		Help: "Times this manager's renewal of the member's Lease came later than the renew deadline but within the give-up time (two lease durations): its writes were refused meanwhile, its leadership and controllers kept.",
	}, []string{"member"})
	electionErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federation_election_errors_total", Help: "Failed Lease writes, by action.",
	}, []string{"member", "action"})
)

// RegisterMetrics registers the election's metrics on reg; registering them
// again is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	return metricsreg.Register(reg, leading, leaderTransitions, handovers, handoverRequests, stepDowns, lateRenewals, electionErrors)
}
