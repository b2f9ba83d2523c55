package exportstatus

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
	exportsDesc = prometheus.NewDesc("antreaplus_entityexports",
		"EntityExports of this cluster by the reason of their Valid condition.",
		[]string{"valid_reason"}, nil)
	exportedDesc = prometheus.NewDesc("antreaplus_entityexport_exported_entities",
		"ExternalEntities selected by the EntityExports of this cluster, summed over the exports (status.exportedEntities).",
		nil, nil)
)

// exportsCollector counts the exports in the cache at scrape time.
type exportsCollector struct{ reader client.Reader }

func (c exportsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- exportsDesc
	ch <- exportedDesc
}

func (c exportsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	list := &federationv1alpha1.EntityExportList{}
	if err := c.reader.List(ctx, list); err != nil {
		return
	}
	counts := map[string]int{}
	exported := 0
	for _, e := range list.Items {
		reason := "Unknown"
		if v := meta.FindStatusCondition(e.Status.Conditions, federationv1alpha1.EntityExportConditionValid); v != nil {
			reason = v.Reason
		}
		counts[reason]++
		exported += int(e.Status.ExportedEntities)
	}
	for reason, n := range counts {
		ch <- prometheus.MustNewConstMetric(exportsDesc, prometheus.GaugeValue, float64(n), reason)
	}
	ch <- prometheus.MustNewConstMetric(exportedDesc, prometheus.GaugeValue, float64(exported))
}

// RegisterMetrics registers the controller's metrics on reg; reader (the
// current manager's cache) serves the export counts at every scrape.
// Registering them again with the same reader is not an error.
func RegisterMetrics(reg prometheus.Registerer, reader client.Reader) error {
	if err := statuswrite.RegisterMetrics(reg); err != nil {
		return err
	}
	return metricsreg.Register(reg, exportsCollector{reader: reader})
}
