// Package policyview is what `antreaplus policy list` and `antreaplus policy
// status` show: every network policy of every member of a kubeconfig,
// federated or not, with how far it is realised. It only reads; the statuses
// it shows are written by Antrea (NetworkPolicy, ClusterNetworkPolicy of
// crd.antrea.io) and by the member controller (FederatedNetworkPolicy of
// policy.antreaplus.io, see docs/federated-policy.md).
//
// Read does the I/O: it reads every member concurrently, each within a
// timeout, into a Snapshot (the member's ClusterMembership and its
// policies). List and Status are pure functions from snapshots to what is
// shown.
//
// # Rules
//
//   - A member is a kubeconfig context. Its cluster ID is the one of its
//     ClusterMembership (cluster.clusterset.k8s.io) when it belongs to a
//     federation, else empty.
//   - A member whose every read failed (no answer, bad credentials) is
//     unreadable: Member.Readable is false and Member.Errors says why. A
//     member some kinds of which could not be read is readable, with an
//     error per kind. A kind whose CRD the member does not serve is in
//     Member.NotInstalled; that is not an error.
//   - ClusterNetworkPolicies are read whatever the Namespace asked for:
//     they are cluster-wide and may apply to any Namespace.
//   - A FederatedNetworkPolicy is federated. Its enforcement points are its
//     status.enforcementPoints (realized / all), and Remote counts its
//     status.remoteSources (resolved / all) and status.refusedPeers.
//   - An Antrea NetworkPolicy labelled policy.antreaplus.io/federated-policy
//     was derived by the member controller from the federated policy that
//     label names (DerivedFrom). It is listed right after that policy and, when
//     that policy is listed too, it is counted once in the summary, as that
//     federated policy (Summary.Derived counts every derived row).
//   - An Antrea policy's enforcement points are Nodes:
//     status.currentNodesRealized / status.desiredNodesRealized.
//   - A policy is stale when a status was written (observedGeneration,
//     phase or conditions set) for a generation older than
//     metadata.generation. A policy nobody wrote a status for has no phase
//     and is not stale.
//   - A policy is realized when its phase is Realized, it is not stale and
//     every enforcement point enforces it; Summary.NotRealized counts the
//     others.
//   - Status(name) details the policies named name of every kind, and the
//     Antrea NetworkPolicies derived from a federated policy named name.
//
// # JSON
//
// The JSON of a Listing (`policy list -o json`), stable field names:
//
//	members[]:  context, clusterID, federationID, readable, errors[], notInstalled[], policies
//	policies[]: context, clusterID, kind, namespace, name, tier, priority,
//	            federated, derivedFrom, phase, realized, desired,
//	            remote{sourcesResolved, sourcesTotal, refusedPeers} (federated only),
//	            generation, observedGeneration, stale
//	summary:    policies, federated, derived, stale, notRealized,
//	            members, membersRead, membersUnreadable
//
// The JSON of a PolicyStatus (`policy status NAME -o json`): name, members[]
// as above, and policies[], each a policy row as above with
//
//	conditions[]: type, status, reason, message, lastTransitionTime
//	derivedPolicy, enforcementPoints[], remoteSources[], refusedPeers[]
//	              (federated only; the FederatedNetworkPolicy status fields, same names)
//
// Empty strings and absent lists are left out; numbers and booleans are always there.
//
// # Usage
//
// See ExampleRead (what the CLI does) and ExampleList.
package policyview
