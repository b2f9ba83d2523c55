// Package tenancy decides which controller instance, and which replica of
// it, manages each tenant, and lets the controllers ask.
//
// A tenant is a Namespace. A controller instance (--tenancy-instance) picks
// its tenants with a label selector over Namespaces (--tenant-selector): one
// instance per tenant is hard tenancy, one instance for many is soft
// tenancy. Among the tenants an instance selects, those that hold a
// CloudProviderAccount are claimed, one Lease per tenant in the controllers'
// namespace (ClaimLeaseName), which the API server arbitrates: a tenant is
// managed by the one replica whose claim is current, never by two.
//
// The replicas of one instance announce themselves with a Lease each
// (ReplicaLeaseName) and share the instance's tenants by consistent hashing
// with bounded loads (Assign): each replica computes the same plan, claims
// what is planned for it, and releases what is no longer. A replica that
// dies stops renewing; its claims expire after the lease duration and the
// replicas planned for them take them.
//
// An instance that selects a tenant another instance holds leaves it alone
// and says so: a contender annotation on the claim (the owner turns it into
// the TenantExclusive condition of the tenant's accounts), a Warning Event
// on the Namespace and the antreaplus_tenancy_contended_tenants metric.
// Across a federation, each member's leader compares the claims of every
// member and writes the tenants claimed elsewhere into the ConfigMap
// OverlapsConfigMap of its member, which the owner reports the same way.
//
// The decisions are pure (package claim, Assign); Owner reads the Leases,
// decides through them and writes.
package tenancy
