// Package translate derives, from a FederatedNetworkPolicy, the Antrea
// NetworkPolicy fnp-<name> and the Groups that realise it, and reports what
// its remote peers resolved to and which peers it refused. It does no I/O:
// the member controller (package federatedpolicy) reads the inputs, calls
// Translate and writes what it returns.
//
// # Rules
//
// The derived policy has the federated policy's tier, priority, appliedTo
// and rules, in order, except:
//
//   - A peer without scope ClusterSet is copied unchanged; a ClusterSet
//     ipBlock (or a peer selecting nothing) without its scope.
//   - A ClusterSet externalEntitySelector peer becomes its local part, the
//     selector without scope and without its requirements on federation
//     labels (keys under federation.antreaplus.io/ and
//     member.federation.antreaplus.io/), left out when those requirements
//     do not hold for this member (source-cluster is its clusterID, the
//     member labels its ClusterMembership labels); and a group peer of the
//     Group of the /32 (/128) of every RemoteEntity it selects: in the
//     policy's Namespace, or in the Namespaces its namespaceSelector
//     selects. Never elsewhere: a tenant's policy does not see another
//     Namespace's remote entities unless it selects that Namespace. A
//     RemoteEntity's source-cluster is its spec.sourceCluster, whatever its
//     labels say.
//   - A toServices entry with scope ClusterSet is resolved to what the
//     federated Service offers: the ServiceImport's cluster-set IPs on its
//     ports and every ready address of the imported EndpointSlices on the
//     ports of their slice. Addresses are grouped by the set of ports they
//     are offered on; each set becomes a rule "<name>-<n>" with those ports
//     and group peers of its addresses, consecutive and with the rule's
//     action. Entries with another scope stay in the rule "<name>".
//   - A ClusterSet peer selecting Pods (podSelector, namespaceSelector
//     alone, serviceAccount) is refused as RemotePodsRefused, a ClusterSet
//     group, nodeSelector or fqdn as UnsupportedClusterSetPeer: left out,
//     with a message saying why and what to use instead. A rule whose every
//     peer is refused is left out: it is never widened to every peer.
//   - A derived rule is named after its rule, or "<direction>-<index>"; a
//     generated name that collides with another gets "-x<k>".
//
// A source that resolves to no address is still one (empty) Group, which
// matches nothing, and its RemoteSourceStatus says what it waits for.
// Groups are named after the position of their source (and port set), not
// after their content, so that a change of remote addresses rewrites only
// the Groups: the derived policy stays as it is. Addresses are sorted and
// deduplicated, so the same inputs give the same objects.
//
// # Limits
//
// The derived objects are valid under the CRDs: a Group holds at most 1024
// ipBlocks, so a larger source is split in several Groups; a rule holds at
// most 50 peers, so a rule is split in consecutive rules of the same
// action; both are noted in Report.Notes. A policy that would still exceed
// a limit (more than 100 rules in a direction, 128 ports in a port set),
// or is invalid (a duplicate rule name, a selector that does not parse),
// derives nothing: Report.Problem says why.
//
// # Usage
//
// See ExampleTranslate: a policy with a remote peer, its derived objects and
// report.
package translate
