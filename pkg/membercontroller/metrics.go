package membercontroller

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/outage"
	entityexportstatus "antreaplus.io/antreaplus/pkg/entityexport/exportstatus"
	"antreaplus.io/antreaplus/pkg/federatedpolicy"
	"antreaplus.io/antreaplus/pkg/networks/networkstatus"
	"antreaplus.io/antreaplus/pkg/serviceexport/exportstatus"
)

// RegisterMetrics registers on reg the metrics of what Run runs: the
// controllers' (reading whichever manager's cache is current) and the
// outage renewals. The program calls it once, on the registry it serves
// (controller-runtime's metrics.Registry, which the managers serve);
// registering them again is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	return errors.Join(
		exportstatus.RegisterMetrics(reg, &current),
		federatedpolicy.RegisterMetrics(reg, &current),
		entityexportstatus.RegisterMetrics(reg, &current),
		networkstatus.RegisterMetrics(reg, &current),
		outage.RegisterMetrics(reg))
}
