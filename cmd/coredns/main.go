// Command coredns is AntreaPlus's CoreDNS build: stock CoreDNS run as a
// library with an explicit, short plugin chain, plus the project's
// federation plugin (pkg/dns/fedplugin).
//
// One server runs per member cluster and is a complete resolver for the
// member's Pods (and VMs):
//
//   - clusterset.local (KEP-1645) and the federation names
//     <svc>.<ns>.<federationID>.svc.<domain> and
//     <svc>.<ns>.<clusterID>.<federationID>.svc.<domain> by the federation
//     plugin, from the member's imports alone, so that it keeps answering
//     when every supervisor is down;
//   - cluster.local (the member's own Services and Pods) and the reverse
//     zones by the stock kubernetes plugin;
//   - zones configured with the stock etcd plugin from the SkyDNS entries
//     in an etcd (ExternalDNS's coredns provider writes them;
//     docs/external-dns.md);
//   - every other name by the stock forward plugin.
//
// The chain holds every plugin of the Corefile Kubernetes installs
// (kubeadm's), so that this build can replace a cluster's CoreDNS image
// (docs/dns.md).
//
// The flags are CoreDNS's own (-conf, -dns.port, -pidfile, -quiet, -plugins,
// -version); -version prints CoreDNS's release and, where CoreDNS prints its
// commit, "antreaplus <version>" (main.version, set at build time with
// -ldflags "-X main.version=...").
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
	_ "github.com/coredns/coredns/plugin/etcd"
	_ "github.com/coredns/coredns/plugin/file"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/metrics"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"

	"antreaplus.io/antreaplus/pkg/dns/fedplugin"
)

// The DNS server's rights for the stock kubernetes plugin (cluster.local;
// chart: files/rbac/coredns.yaml), as in Kubernetes's system:coredns but
// without Pods, which it watches only with `pods verified`.
// +kubebuilder:rbac:groups="",resources=services;namespaces,verbs=list;watch
// +kubebuilder:rbac:groups=discovery.k8s.io,resources=endpointslices,verbs=list;watch

// directives is the plugin chain, in the order a query passes it (stock
// CoreDNS's order, plugin.cfg). The federation plugin sits before cache:
// its answers depend on the client (locality), which the cache does not
// key on, and it answers from memory anyway. Every name it does not own
// goes on to kubernetes (cluster.local, reverse zones), then file, then
// etcd (SkyDNS entries, e.g. ExternalDNS's coredns provider writes them for
// published names: docs/external-dns.md), then forward.
var directives = []string{
	"reload",
	"bind",
	"ready",
	"health",
	"prometheus",
	"errors",
	"log",
	"loadbalance",
	fedplugin.Name,
	"cache",
	"kubernetes",
	"file",
	"etcd",
	"loop",
	"forward",
}

// version is this build's version, set at build time.
var version = "v0.1.0-dev"

func main() {
	coremain.GitCommit = "antreaplus " + version
	plugin.Register(fedplugin.Name, fedplugin.Setup)
	dnsserver.Directives = directives
	coremain.Run()
}
