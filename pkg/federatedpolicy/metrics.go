package federatedpolicy

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/internal/metricsreg"
)

// Results of a reconcile, the result label of translations.
const (
	resultWritten   = "written"   // a derived object was written
	resultUnchanged = "unchanged" // the derived objects were up to date
	resultFailed    = "failed"    // nothing derived: invalid, too large, name taken, rejected
	resultError     = "error"     // reading or writing failed; retried
)

var (
	translations = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federatedpolicy_translations_total",
		Help: "Translations of federated policies, by result: written (derived objects written), unchanged, failed (nothing derived; see the policy's Translated condition), error (retried).",
	}, []string{"result"})
	translateSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "antreaplus_federatedpolicy_translate_seconds",
		Help:    "Duration of one policy's translation (pure, without reads and writes).",
		Buckets: prometheus.ExponentialBuckets(0.00001, 2, 18),
	})
	writes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_federatedpolicy_writes_total",
		Help: "Writes of the federated policy controller, by kind (NetworkPolicy, Group, FederatedNetworkPolicyStatus) and verb (create, update, delete).",
	}, []string{"kind", "verb"})
	policiesDesc = prometheus.NewDesc("antreaplus_federatedpolicies",
		"FederatedNetworkPolicies of this member by the phase of their status (none: not reconciled yet).",
		[]string{"phase"}, nil)
)

// policiesCollector counts the federated policies in the cache at scrape time.
type policiesCollector struct{ reader client.Reader }

func (c policiesCollector) Describe(ch chan<- *prometheus.Desc) { ch <- policiesDesc }

func (c policiesCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	list := &policyv1alpha1.FederatedNetworkPolicyList{}
	if err := c.reader.List(ctx, list); err != nil {
		return
	}
	counts := map[string]int{}
	for _, p := range list.Items {
		phase := string(p.Status.Phase)
		if phase == "" {
			phase = "none"
		}
		counts[phase]++
	}
	for phase, n := range counts {
		ch <- prometheus.MustNewConstMetric(policiesDesc, prometheus.GaugeValue, float64(n), phase)
	}
}

// RegisterMetrics registers the controller's metrics on reg; reader (the
// manager's cache) serves the policy counts at every scrape. Registering
// them again with the same reader is not an error.
func RegisterMetrics(reg prometheus.Registerer, reader client.Reader) error {
	return metricsreg.Register(reg, translations, translateSeconds, writes, policiesCollector{reader: reader})
}
