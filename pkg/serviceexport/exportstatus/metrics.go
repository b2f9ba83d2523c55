package exportstatus

import (
	"context"
	"time"

	"antreaplus.io/antreaplus/internal/statuswrite"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

var (
	exportsDesc = prometheus.NewDesc("antreaplus_serviceexports",
		"ServiceExports of this cluster by the reason of their Valid condition and the status of their Ready condition.",
		[]string{"valid_reason", "ready"}, nil)
)

// exportsCollector counts the exports in the cache at scrape time.
type exportsCollector struct{ reader client.Reader }

func (c exportsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- exportsDesc }

func (c exportsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	list := &mcsv1beta1.ServiceExportList{}
	if err := c.reader.List(ctx, list); err != nil {
		return
	}
	type key struct{ valid, ready string }
	counts := map[key]int{}
	for _, e := range list.Items {
		k := key{"Unknown", "Unknown"}
		if v := meta.FindStatusCondition(e.Status.Conditions, string(mcsv1beta1.ServiceExportConditionValid)); v != nil {
			k.valid = v.Reason
		}
		if r := meta.FindStatusCondition(e.Status.Conditions, string(mcsv1beta1.ServiceExportConditionReady)); r != nil {
			k.ready = string(r.Status)
		}
		counts[k]++
	}
	for k, n := range counts {
		ch <- prometheus.MustNewConstMetric(exportsDesc, prometheus.GaugeValue, float64(n), k.valid, k.ready)
	}
}

// RegisterMetrics registers the controller's metrics on reg; reader (the
// manager's cache) serves the export counts at every scrape. Registering
// them again with the same reader is not an error.
func RegisterMetrics(reg prometheus.Registerer, reader client.Reader) error {
	if err := statuswrite.RegisterMetrics(reg); err != nil {
		return err
	}
	return metricsreg.Register(reg, exportsCollector{reader: reader})
}
