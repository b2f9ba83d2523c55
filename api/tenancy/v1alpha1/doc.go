// Package v1alpha1 holds the wire vocabulary of tenancy
// (tenancy.antreaplus.io): the labels on Namespaces and claim Leases, the
// persona ClusterRoles of the chart and the names of what `antreaplus tenant
// create` makes (docs/tenancy.md). Tenancy has no kinds of its own: a tenant
// is a Namespace, its claim a Lease.
package v1alpha1
