// Package serviceimport is the leader controller of federated Services. The
// federation manager runs it for every member it leads; for that member it
// merges the ServiceExports of all members (package serviceexport decides
// everything) and writes, only in namespaces that exist in the member:
//
//   - a ServiceImport per exported name (type ClusterSetIP or Headless, the
//     union of ports, the cluster-set IPs and their families, session
//     affinity, internal traffic policy, traffic distribution, the exported
//     labels and annotations; in status the exporting clusters,
//     endpointSliceObjects Present and the Ready condition);
//   - a derived selector-less Service "mcs-<name>" whose ClusterIPs are those
//     IPs, for ClusterSetIP imports, asking for the exporters' IP families
//     (a member without a Service range of a family refuses it: the import's
//     Ready condition says so; when the exporters' only family changes, the
//     Service is recreated);
//   - one set of EndpointSlices per source cluster and address family, with
//     the MCS labels, the source's region, and topology hints computed
//     for the led member's node zones when the import prefers close
//     endpoints (its nodes are watched for zone changes);
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
// See ExampleNew: the controller added to the federation manager's leader
// controllers.
package serviceimport
