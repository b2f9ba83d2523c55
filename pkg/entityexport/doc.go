// Package entityexport holds the pure decisions of exported entities: it
// validates an EntityExport, tells which ExternalEntities of its Namespace
// it selects, and builds the RemoteEntities that the leader of every other
// member writes into that member (federated policies select them with
// externalEntitySelector peers of scope ClusterSet).
//
// Nothing here does I/O: the member controller (package
// entityexport/exportstatus) and the leader controller (package
// entityimport) read the clusters, call these functions and write what they
// return.
//
// # Rules
//
//   - An export is valid when its externalEntitySelector parses; an empty
//     selector selects every ExternalEntity of its Namespace. An invalid
//     export, or one being deleted, exports nothing.
//   - An export selects ExternalEntities of its own Namespace only, never
//     Pods, and none being deleted (a terminated VM's entity disappears
//     everywhere as soon as its deletion starts). A Namespace may hold
//     several exports: an entity that several select is exported once.
//   - The RemoteEntity of entity E of member S is named "<S>.<E>" (RemoteName:
//     beyond 253 characters cut and ended by a hash), in the Namespace of the
//     same name as E's. Its spec holds S, E's name, its kind (E's
//     cloud.antreaplus.io/kind label), its endpoints (those with an IP
//     address) and its ports (those with a number); names longer than the
//     RemoteEntity API allows are left out.
//   - Its labels (RemoteLabels) are E's labels, except those under
//     federation.antreaplus.io/ and member.federation.antreaplus.io/, which
//     only the leader sets (an exporting member cannot pass its entities off
//     as another's); then federation.antreaplus.io/source-cluster=<S>;
//     member.federation.antreaplus.io/<name>=<value> for every label of S's
//     registry entry but the managed-by label (MemberLabels: a prefixed key
//     keeps the part after its slash; when two keys give one name, an
//     unprefixed key wins, then the first prefixed key in lexical order);
//     and app.kubernetes.io/managed-by=antreaplus-federation, which replaces
//     E's own.
//   - SourceLabels are the source-cluster and member labels alone: a member
//     controller evaluates a ClusterSet peer's requirements on those two
//     label families against its own entities with its own Source (its
//     ClusterMembership's clusterID and labels).
//   - The managed-by and source-cluster labels (ImportedLabels) are the
//     record of what was imported from S: a leader lists them to know what
//     to keep, update or withdraw, with no other state.
//   - Matches compares a stored RemoteEntity with the desired one: labels
//     and spec, not annotations (the leader's term), so that a new leader
//     rewrites nothing that is already right.
//
// # Usage
//
// See Example: an export's Valid condition, and the RemoteEntities another
// member's leader writes from it.
package entityexport
