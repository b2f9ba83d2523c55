// Package overlap decides which tenants a member of a federation claims
// that other members claim too: a tenant managed by two members' cloud
// controllers at once. It is pure: the claims of every member, what is
// known of the members that cannot be read, and the time always give the
// same answer.
//
// A member's claims are its claim Leases in the controllers' namespace
// (package tenancy: labelled tenancy.antreaplus.io/lease=claim and
// tenancy.antreaplus.io/tenant=<tenant>, named tenancy.ClaimLeaseName).
// A claim counts while it is current: it has a holder and renewTime +
// leaseDurationSeconds is after now (claim.Lease.Current). Expired and
// released (holderless) claims are ignored.
//
// For one member, a tenant overlaps when the member holds a current claim
// of it and at least one other member does too. Its overlaps are the other
// members' current claims of it (tenancy.Overlap: member and holder),
// sorted by member then holder, without duplicates. A tenant without
// overlaps is absent from the result; no tenant overlaps in a member that
// claims nothing.
//
// A member that cannot be read now (its informers are not synced) is kept
// (Decide): the overlaps with it that were last written stay, for the
// tenants the member decided for still claims, until it can be read again.
// A member neither read nor kept (withdrawn: unreachable from the whole
// federation past the grace, or gone from the registry) claims nothing.
//
// Appeared lists the (tenant, member) pairs that are new in a decision: a
// tenant that becomes claimed in one more member; a change of holder in a
// member that already claimed it is not one.
//
// Encode and Decode are the ConfigMap tenancyv1alpha1.OverlapsConfigMap's data:
// key a tenant, value its overlaps as JSON.
//
// # Usage
//
// See ExampleDecide.
package overlap
