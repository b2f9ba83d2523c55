// Package locality decides which endpoints of a federated Service are the
// closest to a client, for imports whose trafficDistribution is PreferClose.
// It is pure: the import writer (package serviceimport, through
// serviceexport.DesiredSlices) uses it for the topology hints of imported
// EndpointSlices, and the DNS server (package dns/fedplugin) for the
// addresses it answers.
//
// # Rules
//
// A Place is a cluster ID, a region and a zone (topology.kubernetes.io/region
// and /zone; "" is unknown and matches nothing). Seen from a client, an
// endpoint falls in one tier, the first that holds:
//
//  1. LocalZone: the client's own cluster and the client's zone;
//  2. Local: the client's own cluster;
//  3. Zone: another cluster, in the client's zone;
//  4. Region: another cluster, in the client's region;
//  5. Farther: anywhere else.
//
// Only the closest tier that holds at least one endpoint is used (Closest);
// the farther tiers are used when it empties, which the callers see because
// they pass ready endpoints only.
//
// Hints turns this into EndpointSlice hints for a member whose nodes are in
// a set of zones: each endpoint is hinted for every zone of the member for
// which it is in the closest tier. A hint-aware service proxy uses hints only
// when every ready endpoint has one, so an endpoint that is in no zone's
// closest tier is hinted for FartherZone, a zone no node is in: the proxy
// never picks it while the hints stand.
//
// # Usage
//
// See ExampleClosest and ExampleHints.
package locality
