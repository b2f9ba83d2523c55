package fedplugin

import (
	"slices"
	"strings"
	"time"

	"github.com/coredns/caddy"
	"github.com/coredns/coredns/plugin"
	"github.com/coredns/coredns/plugin/pkg/fall"
	"github.com/miekg/dns"
)

// options are the settings of one federation block.
type options struct {
	zones          []string // domains of federation names
	reverse        []string // reverse zones the plugin is authoritative for
	clusterset     string
	kubeconfig     string
	context        string
	federationID   string
	clusterID      string
	ttl            uint32
	startupTimeout time.Duration
	fall           fall.F
}

// parse reads:
//
//	federation [ZONES...] {
//	    kubeconfig KUBECONFIG [CONTEXT]
//	    federation_id ID
//	    cluster_id ID
//	    clusterset ZONE|off
//	    ttl SECONDS
//	    startup_timeout DURATION
//	    fallthrough [ZONES...]
//	}
//
// ZONES default to the server block's zones. Reverse zones (in-addr.arpa.,
// ip6.arpa.) among them are where the plugin answers PTR authoritatively;
// the others, but the clusterset zone, are the domains of federation names.
func parse(c *caddy.Controller) (*options, error) {
	o := &options{clusterset: "clusterset.local.", ttl: defaultTTL, startupTimeout: defaultStartupTimeout}
	i := 0
	for c.Next() {
		if i > 0 {
			return nil, plugin.ErrOnce
		}
		i++
		args := c.RemainingArgs()
		for c.NextBlock() {
			if err := o.parseOption(c); err != nil {
				return nil, err
			}
		}
		for _, z := range plugin.OriginsFromArgsOrServerBlock(args, c.ServerBlockKeys) {
			switch {
			case isReverse(z):
				o.reverse = append(o.reverse, z)
			case len(args) > 0 || (z != o.clusterset && z != "."):
				o.zones = append(o.zones, z)
			}
		}
		if o.clusterset != "" && slices.Contains(o.zones, o.clusterset) {
			return nil, c.Errf("the clusterset zone %s cannot also be a federation domain", o.clusterset)
		}
	}
	return o, nil
}

func (o *options) parseOption(c *caddy.Controller) error {
	var err error
	switch c.Val() {
	case "kubeconfig":
		args := c.RemainingArgs()
		if len(args) < 1 || len(args) > 2 {
			return c.ArgErr()
		}
		o.kubeconfig = args[0]
		if len(args) == 2 {
			o.context = args[1]
		}
	case "federation_id":
		args := c.RemainingArgs()
		if len(args) != 1 {
			return c.ArgErr()
		}
		o.federationID = strings.ToLower(args[0])
	case "cluster_id":
		args := c.RemainingArgs()
		if len(args) != 1 {
			return c.ArgErr()
		}
		o.clusterID = strings.ToLower(args[0])
	case "clusterset":
		o.clusterset, err = zoneArg(c)
	case "ttl":
		o.ttl, err = ttlArg(c)
	case "startup_timeout":
		args := c.RemainingArgs()
		if len(args) != 1 {
			return c.ArgErr()
		}
		o.startupTimeout, err = time.ParseDuration(args[0])
	case "fallthrough":
		o.fall.SetZonesFromArgs(c.RemainingArgs())
	default:
		return c.Errf("unknown property %q", c.Val())
	}
	return err
}

func isReverse(z string) bool {
	return dns.IsSubDomain("in-addr.arpa.", z) || dns.IsSubDomain("ip6.arpa.", z)
}
