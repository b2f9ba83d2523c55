// Command coredns is AntreaPlus's CoreDNS build: stock CoreDNS run as a
// library with an explicit, short plugin chain, plus the project's
// federation plugin (pkg/dns/federation).
//
// One server runs per member cluster. It answers from that member's imports
// (ServiceImports and MCS-labelled EndpointSlices) alone, so it keeps
// answering when every supervisor is down:
//
//   - clusterset.local by the stock kubernetes plugin's multicluster option,
//     with the federation plugin in front of it for what stock gets wrong
//     (see docs/dns.md);
//   - <svc>.<ns>.<federationID>.svc.<domain> and
//     <svc>.<ns>.<clusterID>.<federationID>.svc.<domain> by the federation
//     plugin.
//
// The flags are CoreDNS's own (-conf, -dns.port, -pidfile, -quiet, -plugins,
// -version).
//
//	coredns -conf /path/to/Corefile
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"
	"github.com/coredns/coredns/plugin"

	// The stock plugins of this build; each registers itself when imported.
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/file"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/metrics"
	_ "github.com/coredns/coredns/plugin/ready"

	"antreaplus.io/antreaplus/pkg/dns/federation"
)

// directives is the plugin chain, in the order a query passes it. The
// federation plugin sits before kubernetes so that it answers the
// clusterset.local names stock gets wrong and lets the rest through.
var directives = []string{
	"bind",
	"ready",
	"health",
	"prometheus",
	"errors",
	"log",
	"cache",
	federation.Name,
	"kubernetes",
	"file",
}

func main() {
	plugin.Register(federation.Name, federation.Setup)
	dnsserver.Directives = directives
	coremain.Run()
}
