package fedplugin

import (
	"fmt"
	"net/netip"
	"strconv"
	"time"

	"github.com/coredns/caddy"
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/plugin"
	clog "github.com/coredns/coredns/plugin/pkg/log"
	"github.com/miekg/dns"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"antreaplus.io/antreaplus/pkg/dns/importcache"
)

// Name is the plugin's name in a Corefile.
const Name = "federation"

const (
	defaultTTL            = 5
	defaultStartupTimeout = 5 * time.Second
)

var log = clog.NewWithPlugin(Name)

// Setup sets the plugin up from its Corefile block. cmd/coredns registers
// it: plugin.Register(federation.Name, federation.Setup).
func Setup(c *caddy.Controller) error {
	opts, err := parse(c)
	if err != nil {
		return plugin.Error(Name, err)
	}
	trackInstance()
	cfg, err := opts.restConfig()
	if err != nil {
		return plugin.Error(Name, err)
	}
	w, err := importcache.NewWatcher(cfg, importcache.WatcherOptions{FederationID: opts.federationID,
		OnRefresh: func(down time.Duration) {
			log.Infof("the API server answers again after %s: imports listed again with fresh informers", down.Round(time.Second))
			restartAfterOutage(down)
		}})
	if err != nil {
		return plugin.Error(Name, err)
	}
	f := New(watcherSource{w})
	f.Zones, f.ReverseZones, f.Clusterset, f.ClusterID, f.TTL, f.Fall = opts.zones, opts.reverse, opts.clusterset, opts.clusterID, opts.ttl, opts.fall

	c.OnStartup(func() error { return registerMetrics(dnsserver.GetConfig(c)) })
	c.OnStartup(func() error {
		w.Start()
		if !w.WaitSynced(opts.startupTimeout) {
			log.Warningf("imports not listed within %s; answering SERVFAIL for unknown names until they are", opts.startupTimeout)
		}
		return nil
	})
	c.OnShutdown(func() error {
		w.Stop()
		return nil
	})
	dnsserver.GetConfig(c).AddPlugin(func(next plugin.Handler) plugin.Handler {
		f.Next = next
		return f
	})
	return nil
}

// restConfig is the client configuration of the member: the kubeconfig
// given, or the Pod's service account when none is.
func (o *options) restConfig() (*rest.Config, error) {
	if o.kubeconfig == "" {
		return rest.InClusterConfig()
	}
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: o.kubeconfig}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.context}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s: %w", o.kubeconfig, err)
	}
	return cfg, nil
}

// watcherSource answers from a Watcher's Index.
type watcherSource struct{ w *importcache.Watcher }

func (s watcherSource) Service(ns, name string) *importcache.Service {
	return s.w.Index().Service(ns, name)
}
func (s watcherSource) HasNamespace(ns string) bool                 { return s.w.Index().HasNamespace(ns) }
func (s watcherSource) ByAddr(ip netip.Addr) []*importcache.Service { return s.w.Index().ByAddr(ip) }
func (s watcherSource) FederationID() string                        { return s.w.FederationID() }
func (s watcherSource) ClusterID() string                           { return s.w.ClusterID() }
func (s watcherSource) Locate(ip netip.Addr) (string, string, bool) { return s.w.Index().Locate(ip) }
func (s watcherSource) HasSynced() bool                             { return s.w.HasSynced() }
func (s watcherSource) Serial() uint32                              { return s.w.Index().Serial() }

// ttlArg parses a TTL of 0 to 3600 seconds.
func ttlArg(c *caddy.Controller) (uint32, error) {
	args := c.RemainingArgs()
	if len(args) != 1 {
		return 0, c.ArgErr()
	}
	t, err := strconv.ParseUint(args[0], 10, 32)
	if err != nil || t > 3600 {
		return 0, c.Errf("ttl must be 0 to 3600 seconds, not %q", args[0])
	}
	return uint32(t), nil
}

// zoneArg parses one zone, or "off".
func zoneArg(c *caddy.Controller) (string, error) {
	args := c.RemainingArgs()
	if len(args) != 1 {
		return "", c.ArgErr()
	}
	if args[0] == "off" {
		return "", nil
	}
	if _, ok := dns.IsDomainName(args[0]); !ok {
		return "", c.Errf("%q is not a domain name", args[0])
	}
	return plugin.Host(args[0]).NormalizeExact()[0], nil
}
