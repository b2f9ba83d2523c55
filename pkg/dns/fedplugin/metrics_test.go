package fedplugin

import (
	"strings"
	"testing"

	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/plugin"
	"github.com/coredns/coredns/plugin/metrics"
	"github.com/prometheus/client_golang/prometheus"
)

// TestRegisterMetrics: the import cache's metrics land on the registry of
// the block's prometheus plugin, again without error; a block without
// prometheus registers nothing and does not fail.
func TestRegisterMetrics(t *testing.T) {
	m := metrics.New("127.0.0.1:0")
	m.Reg = prometheus.NewRegistry()
	withPrometheus := serverConfig(t, func(next plugin.Handler) plugin.Handler { m.Next = next; return m })
	for range 2 {
		if err := registerMetrics(withPrometheus); err != nil {
			t.Fatal(err)
		}
	}
	renewals := prometheus.NewCounter(prometheus.CounterOpts{Name: "antreaplus_outage_renewals_total", Help: "probe"})
	if err := m.Reg.Register(renewals); err == nil || !strings.Contains(err.Error(), "antreaplus_outage_renewals_total") {
		t.Errorf("the prometheus plugin's registry took another antreaplus_outage_renewals_total (%v): the plugin did not register it", err)
	}
	if err := registerMetrics(serverConfig(t)); err != nil {
		t.Errorf("a block without prometheus: %v", err)
	}
}

// serverConfig is the configuration of a server block with the plugins
// given, once CoreDNS has built them (which registers their handlers).
func serverConfig(t *testing.T, plugins ...plugin.Plugin) *dnsserver.Config {
	t.Helper()
	cfg := &dnsserver.Config{Zone: ".", ListenHosts: []string{"127.0.0.1"}, Port: "0"}
	for _, p := range plugins {
		cfg.AddPlugin(p)
	}
	if _, err := dnsserver.NewServer("dns://127.0.0.1:0", []*dnsserver.Config{cfg}); err != nil {
		t.Fatal(err)
	}
	return cfg
}
