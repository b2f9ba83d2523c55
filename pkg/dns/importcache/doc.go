// Package importcache keeps, in memory, the slim copies of a member's
// imports that its DNS server answers from: ServiceImports
// (multicluster.x-k8s.io/v1beta1, the stored version) and the EndpointSlices
// labelled multicluster.kubernetes.io/service-name, plus the member's
// federation and cluster IDs read from its ClusterMembership, and where the
// member's Nodes are (zone, region, pod CIDRs, addresses), from which the
// server tells a client's place for locality (Nodes.Locate).
//
// Only what DNS needs is kept (names, type, IPs, ports, traffic
// distribution, ready endpoints' addresses, hostnames and zones, the source
// cluster's region), in the style of CoreDNS's kubernetes plugin, so that
// ten thousand imported Services stay small. The Index is pure (no I/O)
// and is tested with tables; the Watcher fills it from an API server and
// keeps serving its last state when the API server goes away; when the
// server answers again after an outage it lists afresh with new informers
// rather than waiting out client-go's back-off. The program registers the
// Watcher's metrics (its renewals) on the registry it serves with
// RegisterMetrics: the DNS plugin does it on CoreDNS's prometheus plugin's.
//
// # Usage
//
// See ExampleWatcher (the Watcher, as the DNS plugin runs it) and
// ExampleIndex.
package importcache
