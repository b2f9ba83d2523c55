// Package dnsendpoints is the leader controller that publishes the
// federation's Services to clients outside the members through ExternalDNS
// (docs/external-dns.md).
//
// A member opts in by its ClusterMembership's spec.externalDNS (a domain
// and a record TTL): typically the supervisors, where an operator runs
// ExternalDNS with its CRD source. For such a member, the controller run by
// the member's leader keeps, in the member's antreaplus-system, one
// ExternalDNS DNSEndpoint (externaldns.k8s.io/v1alpha1) per federated
// Service that has exports reachable from outside: named
// <service>.<namespace>, labelled app.kubernetes.io/managed-by=antreaplus-federation
// and with the Service's namespace and name, its records those
// records.Desired decides for the federation-wide, region and zone names.
// One writer per member at a time (the member's leader Lease, every write
// fenced by the term); a new leader decides the same records from the same
// exports and rewrites nothing.
//
// The exporters are read from every member's cache, through the informers
// the Service imports already hold (ServiceExports, Services,
// EndpointSlices, nodes): ExporterOf turns one member's objects into a
// records.Exporter (a pure function). A member the federation withdrew
// (unreachable past the grace) drops out; a member that cannot be read for
// a while (its cache not synced, this manager cut off from it) keeps the
// part the stored DNSEndpoint remembers (its ExportersAnnotation).
//
// Ownership: only DNSEndpoints labelled as the federation's are updated or
// deleted, each write preconditioned on the resourceVersion (update) or the
// UID and resourceVersion (delete) read. A DNSEndpoint of the same name
// that someone else wrote is left alone; the Service is then not published,
// with a Warning Event on that object (ReasonInTheWay) and the gauge
// antreaplus_federation_dnsendpoints_blocked. What no export backs any more
// (unexported, the last exporter gone, the domain removed) is deleted.
//
// The API server is asked only to write and, every Resync, to list the
// federation's DNSEndpoints (someone deleting or changing one is repaired
// then); a write that meets a change reads the object again. A member that
// asks for external DNS without serving the DNSEndpoint API (ExternalDNS's
// CRD is not installed) gets nothing written and the gauge
// antreaplus_federation_dnsendpoints_api_missing at 1, with the reconcile
// errors saying what to install.
package dnsendpoints
