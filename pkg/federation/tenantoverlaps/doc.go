// Package tenantoverlaps is the leader controller that reports, in every
// member its federation manager leads, the tenants claimed in two members
// at once: two cloud controllers, one in each member, managing the same
// tenant's cloud accounts.
//
// For the member it leads, it reads the tenants' claim Leases of every
// member (package tenancy: labelled tenancy.antreaplus.io/lease=claim in
// antreaplus-system, federationv1alpha1.SystemNamespace, which is also the cloud controllers'
// default --tenancy-namespace; claims kept elsewhere are not seen across
// the federation) through each member's cache, and package overlap decides
// everything. It keeps the ConfigMap tenancyv1alpha1.OverlapsConfigMap in the led
// member's antreaplus-system: one key per tenant the led member claims
// that another member claims too, its value the JSON list of those claims
// (tenancy.Overlap: member and holder). The ConfigMap exists only while
// there is an overlap: it is deleted when there is none, and a reader
// takes a missing ConfigMap for no overlap. The cloud controllers' owner
// (tenancy.Owner) reads it and reports the tenants in it.
//
// It writes only when the content changes: it remembers what the ConfigMap
// held when last read or written, and reads it again (a GET; the federation
// account may not list or watch ConfigMaps) before any write, and every
// Reread even when nothing changed, so that a ConfigMap someone else
// changed or deleted is set right (a deleted one is written again, and its
// tenants reported again). Writes carry the resourceVersion or UID
// read; they are fenced by the election and stamped with the leader term
// (leaderloop.Fenced).
//
// When a tenant becomes claimed in one more member, it records a Warning
// Event, reason TenantClaimedInOtherMember, on the tenant's claim Lease in
// the led member, naming the other member and holder and what to do. What
// is new is judged against the ConfigMap as stored, so a new leader does
// not report again what its predecessor reported; a change of holder in a
// member that already claimed the tenant is not reported.
//
// Members whose informers are not synced are kept (package sources): the
// overlaps with them that were written stay while the led member claims
// the tenant. Members withdrawn (unreachable from every supervisor past
// the grace and the hold-down, or gone from the registry) claim nothing.
// Claims expire without an event: each reconcile asks for the next one
// when the first current claim it read would expire unrenewed (a renewal
// is an event; the reconcile then finds nothing to change) or when the
// ConfigMap is due to be read again (Reread), whichever comes first, and
// every key is reconciled again every Resync (30 s by default).
// It was a resync every second: at 30 members each supervisor reconciled
// every member it led once a second, reading every member's claims (the
// largest part of its CPU at idle).
//
// The metric antreaplus_federation_tenant_overlaps is, per led member, the
// number of tenants its ConfigMap lists.
//
// # Usage
//
// See ExampleNew: the controller added to the federation manager's leader
// controllers.
package tenantoverlaps
