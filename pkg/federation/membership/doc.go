// Package membership forms and dissolves an AntreaPlus federation: it makes
// clusters supervisors (Create), joins members (Join), removes them (Leave)
// and reads the federation's state from the supervisors' registries (Status).
//
// A member carries its identity in the cluster-scoped ClusterMembership
// (KEP-2149 names) and a least-privilege ServiceAccount in the namespace
// antreaplus-system: a Role for its leader Lease, a ClusterRole to read
// exports and write imports, and in supervisors a Role to read the registry.
// Nothing is cluster-admin. Every supervisor holds the registry: a
// MemberCluster per member and a Secret with that member's token and CA.
//
// The functions talk to real clusters, given as kubeconfig contexts
// (Cluster). Their pure parts (cluster ID sanitising, conflict checks, RBAC
// and registry objects, merging the registries of several supervisors) live
// in their own files with table tests.
//
// # Usage
//
// See Example: a federation created, joined, read and left; and
// ExampleSanitizeClusterID.
//
// Join and Create read and check everything before writing anything, so a
// refused join (a cluster of another federation, a cluster ID the registry
// gives to another API server) leaves no trace. Both are idempotent.
// Identity reads a cluster's ClusterMembership.
//
// # Discovering supervisors
//
// Discover probes every context of a kubeconfig at once, with a short
// timeout, for a ClusterMembership with supervisor=true: see
// ExampleDiscover.
package membership
