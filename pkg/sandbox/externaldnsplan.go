package sandbox

import (
	"fmt"
	"net/netip"
)

// The external DNS stack of a sandbox run with --external-dns
// (docs/external-dns.md, "The real consumer"): the federation's names
// published to clients outside the members, as an operator would publish
// them. The first supervisor's leader writes a DNSEndpoint per federated
// Service into its antreaplus-system (its ClusterMembership's
// spec.externalDNS asks for it); ExternalDNS (its CRD source, coredns
// provider and TXT registry) writes them as SkyDNS entries into an etcd of
// its own; our CoreDNS build answers the domain from that etcd (the stock
// etcd plugin) on ExternalDNSAddr.
const (
	// ExternalDNSDomain is the domain the sandbox publishes the
	// federation's names under, e.g.
	// web.shop.sandbox.svc.member-2.sandbox.ext.antreaplus.test.
	ExternalDNSDomain = "ext.antreaplus.test"
	// ExternalDNSTTL is the TTL, in seconds, of every published record
	// (the federation's default).
	ExternalDNSTTL = 30
	// ExternalDNSOwner is ExternalDNS's --txt-owner-id: its TXT registry
	// touches only the records it made under this owner.
	ExternalDNSOwner = "sandbox"
	// externalDNSEtcdPath is where the coredns provider writes in etcd and
	// the etcd plugin reads (both default to /skydns).
	externalDNSEtcdPath = "/skydns"
)

// ExternalDNSAddr is the loopback address of the external DNS server: its
// own, beside the members' 127.0.53.i.
var ExternalDNSAddr = netip.AddrFrom4([4]byte{127, 0, 54, 1})

// externalDNSPortOffset puts the external DNS stack's ports above the
// local cloud's.
const externalDNSPortOffset = cloudPortOffset + cloudPorts

// externalDNSPorts is how many ports the stack takes: the DNS server's
// DNS, /ready and /metrics ports, etcd's client and peer ports, and
// ExternalDNS's metrics and health port.
const externalDNSPorts = 6

// ExternalDNSState is what the state records of a sandbox run with
// --external-dns, and the plan of its processes. Recorded: later runs of
// 'sandbox up' keep the stack running.
type ExternalDNSState struct {
	// Cluster is the supervisor whose ClusterMembership asks for the
	// records and whose DNSEndpoints ExternalDNS publishes: the first
	// supervisor.
	Cluster string `json:"cluster"`
	// Domain the names are published under, with RecordTTL.
	Domain    string `json:"domain"`
	RecordTTL int64  `json:"recordTTL"`
	// Server is the DNS server answering Domain (UDP and TCP on
	// Server.Endpoint()).
	Server DNSPlan `json:"server"`
	// EtcdPort and EtcdPeerPort are the etcd's loopback client and peer
	// ports.
	EtcdPort     int `json:"etcdPort"`
	EtcdPeerPort int `json:"etcdPeerPort"`
	// MetricsPort serves ExternalDNS's /metrics and /healthz on loopback.
	MetricsPort int `json:"metricsPort"`
}

// PlanExternalDNS lays out the external DNS stack of a sandbox whose
// member-1 API server listens on apiPortBase, publishing cluster's
// DNSEndpoints: the DNS server on 127.0.54.1, ports base+315..317, etcd on
// base+318 and 319, ExternalDNS's metrics on base+320.
func PlanExternalDNS(apiPortBase int, cluster string) ExternalDNSState {
	b := apiPortBase + externalDNSPortOffset
	return ExternalDNSState{
		Cluster:      cluster,
		Domain:       ExternalDNSDomain,
		RecordTTL:    ExternalDNSTTL,
		Server:       DNSPlan{Addr: ExternalDNSAddr, Port: b, ReadyPort: b + 1, MetricsPort: b + 2},
		EtcdPort:     b + 3,
		EtcdPeerPort: b + 4,
		MetricsPort:  b + 5,
	}
}

// Ports are every port of the stack.
func (e ExternalDNSState) Ports() []int {
	return []int{e.Server.Port, e.Server.ReadyPort, e.Server.MetricsPort, e.EtcdPort, e.EtcdPeerPort, e.MetricsPort}
}

// EtcdURL is the etcd's client URL.
func (e ExternalDNSState) EtcdURL() string { return "http://" + loopback(e.EtcdPort) }

// metricsAddr is ExternalDNS's --metrics-address.
func (e ExternalDNSState) metricsAddr() string { return loopback(e.MetricsPort) }

// Dig is the dig command line asking the server for name's A records.
func (e ExternalDNSState) Dig(name string) string {
	return fmt.Sprintf("dig @%s -p %d +short %s", e.Server.Addr, e.Server.Port, name)
}

// externalDNSCorefile is the DNS server's configuration: the domain alone,
// from the etcd ExternalDNS writes into (no cache: an answer follows
// etcd at once; the records' TTL tells resolvers how long to keep them).
// Other names are refused.
func externalDNSCorefile(e ExternalDNSState) string {
	addr := e.Server.Addr.String()
	return fmt.Sprintf(`# Written by 'antreaplus sandbox up --external-dns': the DNS server of the
# federation's names outside the members, published by ExternalDNS into etcd.
%[1]s:%[2]d {
    bind %[3]s
    errors
    ready %[3]s:%[4]d
    prometheus %[3]s:%[5]d
    etcd %[1]s {
        path %[6]s
        endpoint %[7]s
    }
}
`, e.Domain, e.Server.Port, addr, e.Server.ReadyPort, e.Server.MetricsPort, externalDNSEtcdPath, e.EtcdURL())
}

// externalDNSEtcdArgs are the etcd's flags: one member on loopback, its
// data in dataDir. A sandbox is disposable: no fsync.
func externalDNSEtcdArgs(e ExternalDNSState, dataDir string) []string {
	peer := "http://" + loopback(e.EtcdPeerPort)
	return []string{
		"--name=external-dns",
		"--data-dir=" + dataDir,
		"--listen-client-urls=" + e.EtcdURL(),
		"--advertise-client-urls=" + e.EtcdURL(),
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=external-dns=" + peer,
		"--unsafe-no-fsync",
		"--log-level=warn",
	}
}

// externalDNSArgs are ExternalDNS's flags: the DNSEndpoints of namespace
// in the cluster kubeconfig's current context names, published under the
// domain into the etcd (externalDNSEnv) with its TXT registry, every 5 s
// and on every change.
func externalDNSArgs(e ExternalDNSState, kubeconfig, namespace string) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--namespace=" + namespace,
		"--source=crd",
		"--crd-source-apiversion=externaldns.k8s.io/v1alpha1",
		"--crd-source-kind=DNSEndpoint",
		"--provider=coredns",
		"--registry=txt",
		"--txt-owner-id=" + ExternalDNSOwner,
		"--domain-filter=" + e.Domain,
		"--policy=sync",
		"--interval=5s",
		"--events",
		"--metrics-address=" + e.metricsAddr(),
	}
}

// externalDNSEnv is ExternalDNS's environment beside the sandbox's: the
// coredns provider takes its etcd from ETCD_URLS.
func externalDNSEnv(e ExternalDNSState) []string {
	return []string{"ETCD_URLS=" + e.EtcdURL()}
}

// externalDNSServerArgs are the DNS server's flags.
func externalDNSServerArgs(corefile string) []string {
	return []string{"-conf", corefile}
}
