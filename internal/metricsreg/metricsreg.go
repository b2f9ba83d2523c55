package metricsreg

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/prometheus/client_golang/prometheus"
)

// Register registers every collector on reg. A collector reg already holds
// is not an error, so that RegisterMetrics may be called again on the same
// registry (a CoreDNS reload, a test that sets a package up twice); any
// other refusal is, such as another collector of the same metric name.
func Register(reg prometheus.Registerer, collectors ...prometheus.Collector) error {
	for _, c := range collectors {
		if err := reg.Register(c); err != nil && !holds(err, c) {
			return fmt.Errorf("registering metrics: %w", err)
		}
	}
	return nil
}

// holds tells whether err says that the registry already holds c itself.
// Collectors are compared with ==, which only comparable values allow.
func holds(err error, c prometheus.Collector) bool {
	var are prometheus.AlreadyRegisteredError
	if !errors.As(err, &are) {
		return false
	}
	if !reflect.ValueOf(c).Comparable() || !reflect.ValueOf(are.ExistingCollector).Comparable() {
		return false
	}
	return are.ExistingCollector == c
}
