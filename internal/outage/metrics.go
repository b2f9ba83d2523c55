package outage

import (
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	renewals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_outage_renewals_total",
		Help: "Times a component's informers were replaced because its API server answered again after an outage.",
	}, []string{"component"})

	registerOnce sync.Once
)

// registerMetrics adds the renewals counter to controller-runtime's
// registry once; every Renewer does it when it starts.
func registerMetrics() {
	registerOnce.Do(func() {
		if err := RegisterMetrics(metrics.Registry); err != nil {
			panic(err)
		}
	})
}

// RegisterMetrics adds the renewals counter to reg as well, for a program
// that serves another registry than controller-runtime's (CoreDNS serves
// Prometheus's default one). Registering it twice in reg is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	err := reg.Register(renewals)
	if are := (prometheus.AlreadyRegisteredError{}); errors.As(err, &are) {
		return nil
	}
	return err
}
