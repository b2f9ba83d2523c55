// Package serviceimport is the leader controller of federated Services. The
// federation manager runs it for every member it leads; for that member it
// merges the ServiceExports of all members (package serviceexport decides
// everything) and writes, only in namespaces that exist in the member:
//
//   - a ServiceImport per exported name (type ClusterSetIP or Headless, the
//     union of ports, the exporting clusters in status.clusters, the
//     cluster-set IP in spec.ips);
//   - a derived selector-less Service "mcs-<name>" whose ClusterIP is that
//     IP, for ClusterSetIP imports;
//   - one set of EndpointSlices per source cluster with the MCS labels;
//   - the Conflict condition of the member's own ServiceExports.
//
// Everything it writes carries the app.kubernetes.io/managed-by label and
// is garbage-collected when no export backs it. Writes are compared before
// they are made and fenced by the election (see Member.Fence).
//
// Withdrawal: a source cluster contributes what its informers show while
// they are synced. While they are not (the supervisor just started, the
// member cannot be reached), what the member imported from that cluster is
// kept as it is: the imported EndpointSlices record the source export (see
// serviceexport.ExportFromSlices). Only once the federation marks the
// cluster unreachable past its grace (UnreachableSince, seen for
// UnreachableHoldDown straight), or the cluster has left the registry, are
// its endpoints withdrawn. A leader failover thus withdraws nothing. These
// rules are package sources', shared with the leader controller of
// federated entities (package entityimport).
//
// The loop around the reconciles (write client, work queue, workers,
// resync, reconcile metrics) is package leaderloop's, shared with
// package entityimport.
//
// # Usage
//
//	opts.LeaderControllers = append(opts.LeaderControllers, serviceimport.New(mgr.GetAPIReader(), opts.Namespace))
package serviceimport
