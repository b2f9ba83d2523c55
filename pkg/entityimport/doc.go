// Package entityimport is the leader controller of federated entities. The
// federation manager runs it for every member it leads; for that member it
// reads the EntityExports and ExternalEntities of every other member (through
// each member's cache) and writes, with package entityexport deciding
// everything, one RemoteEntity per exported entity into the Namespace of the
// same name, only where that Namespace exists in the led member and is not
// being deleted. Federated policies of the led member select them with
// externalEntitySelector peers of scope ClusterSet.
//
// It works per (Namespace, source member): the RemoteEntities it imported
// from a member carry app.kubernetes.io/managed-by=antreaplus-federation
// and federation.antreaplus.io/source-cluster=<member>, which are the whole
// record of what was imported from it (entityexport.ImportedLabels). Each
// one is created, updated (only when it differs: entityexport.Matches) or
// deleted (only the very object read). Writes are fenced by the election
// (Member.Fence, and the term the leadership began with) and stamped with
// the leader term annotation. A RemoteEntity of the name it would write
// that it did not write is left alone.
//
// Withdrawal follows package sources, as for federated Services: a member
// whose informers are synced is read; one whose are not (the supervisor
// just started, its cache was replaced after a cut) is kept: what was
// imported from it stays exactly as it is. Its RemoteEntities are withdrawn
// when the export or the entity is deleted, the entity stops matching, the
// member is marked unreachable past the grace (UnreachableSince, seen for
// UnreachableHoldDown straight), or it is gone from the view and from the
// supervisor's registry (it left the federation). A leader failover thus
// withdraws nothing, and a new leader rewrites nothing that is right.
//
// The loop around the reconciles (write client, work queue, workers,
// resync, reconcile metrics) is package leaderloop's, shared with
// package serviceimport.
//
// Member labels are those of the federation view (the labels of each
// member's MemberCluster in the supervisor's registry, from the manager's
// informer); a change of them requeues every key, as any change of a
// source's state does (package sources).
//
// # Usage
//
// See ExampleNew: the controller added to the federation manager's leader
// controllers.
package entityimport
