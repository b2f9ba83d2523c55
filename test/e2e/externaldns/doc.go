// Package externaldns tests the real consumer of published names end to
// end (docs/external-dns.md): the real ExternalDNS (sigs.k8s.io/external-dns,
// built by hack/tools.sh) reads DNSEndpoint objects from a real
// kube-apiserver and, with its coredns provider and TXT registry, writes
// SkyDNS entries into a real etcd, which the project's CoreDNS build
// (cmd/coredns, stock etcd plugin) answers from.
package externaldns
