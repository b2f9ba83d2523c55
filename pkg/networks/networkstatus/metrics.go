package networkstatus

import (
	"context"
	"time"

	"antreaplus.io/antreaplus/internal/statuswrite"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/metricsreg"
)

var (
	networksDesc = prometheus.NewDesc("antreaplus_networks",
		"Networks of this cluster by the reason of their Valid condition.",
		[]string{"valid_reason"}, nil)
)

// networksCollector counts the Networks in the cache at scrape time.
type networksCollector struct{ reader client.Reader }

func (c networksCollector) Describe(ch chan<- *prometheus.Desc) { ch <- networksDesc }

func (c networksCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	list := &federationv1alpha1.NetworkList{}
	if err := c.reader.List(ctx, list); err != nil {
		return
	}
	counts := map[string]int{}
	for _, n := range list.Items {
		reason := "Unknown"
		if v := meta.FindStatusCondition(n.Status.Conditions, federationv1alpha1.NetworkConditionValid); v != nil {
			reason = v.Reason
		}
		counts[reason]++
	}
	for reason, n := range counts {
		ch <- prometheus.MustNewConstMetric(networksDesc, prometheus.GaugeValue, float64(n), reason)
	}
}

// RegisterMetrics registers the controller's metrics on reg; reader (the
// current manager's cache) serves the Network counts at every scrape.
// Registering them again with the same reader is not an error.
func RegisterMetrics(reg prometheus.Registerer, reader client.Reader) error {
	if err := statuswrite.RegisterMetrics(reg); err != nil {
		return err
	}
	return metricsreg.Register(reg, networksCollector{reader: reader})
}
