package controlplane

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
	"antreaplus.io/antreaplus/pkg/policydistribution"
)

// RegisterMetrics registers the metrics of the distribution cp on reg, the
// registry the program serves (controller-runtime's metrics.Registry in the
// policy controller); registering them again is not an error.
func RegisterMetrics(reg prometheus.Registerer, cp *ControlPlane) error {
	if err := policydistribution.RegisterMetrics(reg, cp.Metrics, cp.Server); err != nil {
		return err
	}
	if cp.Stats != nil {
		if err := metricsreg.Register(reg, cp.Stats.Collectors()...); err != nil {
			return err
		}
	}
	if cp.Traces == nil {
		return nil
	}
	return metricsreg.Register(reg, cp.Traces.Collectors()...)
}
