// Package federatedpolicy is the member controller that realises
// FederatedNetworkPolicies: it translates each one (package translate)
// into the Antrea NetworkPolicy fnp-<name> and its Groups, writes them,
// and writes the federated policy's status.
//
// # Inputs and events
//
// A translation reads the policy, this member's ClusterMembership (its
// clusterID and labels), the RemoteEntities of the Namespaces its
// ClusterSet peers select, the Namespaces' labels (for namespaceSelector
// peers) and, per federated Service it names, the ServiceImport and the
// EndpointSlices the federation imported (managed-by antreaplus-federation).
// Each event re-translates only the policies it can affect, found through
// field indexes: a RemoteEntity the policies of its Namespace with
// ClusterSet externalEntitySelector peers and the policies with ClusterSet
// namespaceSelector peers; a ServiceImport or imported EndpointSlice the
// policies naming that Service; a Namespace's labels the policies with
// namespaceSelector peers; the ClusterMembership (its spec, labels and
// status.withheld: what the federation holds back from this member, named
// in the sources as notExportedHere) every policy; a derived object the
// policy that owns it.
//
// # Writes
//
// Derived objects are written only when they differ (semantically) from
// what the API server holds: Groups first, then the policy, then the
// Groups no longer wanted are deleted. A change of remote addresses
// rewrites only the Groups it touches. An object of a derived name that
// this policy does not manage (managed-by label and controller owner) is
// never touched: the policy reports Translated=False, NameTaken, and
// nothing is written. One left by an earlier policy of the same name is
// deleted. A policy that cannot be translated (Problem) keeps its derived
// objects as they are. Deleted policies lose their derived objects to the
// garbage collector (owner references) and to this controller.
//
// # Status
//
// Conditions: Translated (the derived objects are written; False with
// NameTaken, InvalidPolicy, TooLarge or DerivedObjectRejected),
// RemotePeersResolved (False with the sources still awaited and what each
// waits for), PeersAccepted (False with the refused peers; the reason of
// the first), Realized.
//
// Enforcement points come from the derived policy's status: the policy
// controller (package policystatus) lists every enforcer of the VMs the
// policy applies to in its Enforcers condition ("agent <ns>/<vm>",
// "agentless"). When the policy applies to Pods (a podSelector or
// serviceAccount in appliedTo) a point "antrea" is added: a stock Antrea
// enforces the derived policy for Pods. Antrea is detected once, at start,
// from the APIService v1beta2.controlplane.antrea.io; the point is realised
// when the derived policy's status is Realized for its generation, and
// without Antrea it is not realised, reason AntreaNotInstalled.
//
// The phase:
//
//   - Failed when nothing is derived (see Translated), when the derived
//     policy's status is Failed for its generation, or when the policy
//     applies to Pods only and Antrea is not installed;
//   - Pending until the derived policy's status describes its current
//     generation, and while that status is Pending or Realizing;
//   - Realized when that status is Realized, or when no rule is left to
//     enforce. The "antrea" point without Antrea does not alone make a
//     policy Failed when it applies to VMs too: the VMs are protected, and
//     the Realized condition's message says the Pods are not.
//
// # Usage
//
// See ExampleSetup.
package federatedpolicy
