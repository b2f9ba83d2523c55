package fedplugin

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/plugin/metrics"

	"antreaplus.io/antreaplus/pkg/dns/importcache"
)

// registerMetrics registers the metrics of what the plugin runs (its
// import cache's) on the registry of the server block's prometheus plugin,
// the one CoreDNS serves on its /metrics, as CoreDNS's own plugins find it;
// a block without prometheus serves no metrics. It runs at startup, once
// CoreDNS has built the block's plugins, and again after a reload, which is
// not an error.
func registerMetrics(cfg *dnsserver.Config) error {
	m, ok := cfg.Handler("prometheus").(*metrics.Metrics)
	if !ok {
		return nil
	}
	return importcache.RegisterMetrics(m.Reg)
}
