package apiwrites

import (
	"github.com/prometheus/client_golang/prometheus"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

// RegisterMetrics registers c, antreaplus_cloud_controller_api_writes_total,
// on reg; registering c again is not an error.
func RegisterMetrics(reg prometheus.Registerer, c *Counter) error {
	return metricsreg.Register(reg, c)
}
