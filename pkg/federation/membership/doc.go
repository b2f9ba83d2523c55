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
//	kc, err := membership.LoadKubeconfig(path)
//	sup, _ := kc.Cluster("member-1")
//	err = membership.Create(ctx, os.Stderr, "acme", []membership.Cluster{sup}, membership.CreateOptions{})
//	m2, _ := kc.Cluster("member-2")
//	id, err := membership.Join(ctx, os.Stderr, m2, "", []membership.Cluster{sup}, membership.JoinOptions{})
//	st, err := membership.Status(ctx, []membership.Cluster{sup}, map[string]membership.Cluster{id: m2})
//	err = membership.Leave(ctx, os.Stderr, m2, []membership.Cluster{sup}, false)
//
// Join and Create read and check everything before writing anything, so a
// refused join (a cluster of another federation, a cluster ID the registry
// gives to another API server) leaves no trace. Both are idempotent.
// Identity reads a cluster's ClusterMembership.
//
// # Discovering supervisors
//
// Discover probes every context of a kubeconfig at once, with a short
// timeout, for a ClusterMembership with supervisor=true:
//
//	d, err := membership.Discover(ctx, kc.Clusters, "acme", 2*time.Second)
//	// d.Supervisors, d.Members (by cluster ID), d.Missing (registry supervisors without a context)
package membership
