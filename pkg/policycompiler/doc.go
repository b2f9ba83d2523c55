// Package policycompiler compiles Antrea-native policies (namespaced Antrea
// NetworkPolicies and ClusterNetworkPolicies, with their Groups,
// ClusterGroups and Tiers) into the exact, ordered rules that every
// enforcement point must enforce. An enforcement point is an
// ExternalEntity, named "namespace/name"; its spec.externalNode names the
// VM (or agent) that enforces its rules. Pods of the local cluster and
// Namespaces are inputs too, because rules select them as peers.
//
// What it computes is expressed in package policyrules (CompiledRule,
// EndpointRules, actions, protocols, priorities), which the wire format and
// the enforcement points share without linking the compiler.
//
// The package is pure: no I/O, no API server, no goroutines. Controllers
// read objects, hand them to a Compiler, and write what it computes. It is
// incremental: a change recompiles only the rules and endpoints it touches
// (selectors are indexed both ways against the label sets of workloads, as
// in Antrea's controller), and compiled rules and address sets are shared
// between endpoints.
//
// # Usage
//
// See Example: a policy compiled for the VMs it applies to, an incremental
// change, the policy's status, and policyrules.Evaluate, the reference
// semantics.
//
// # Semantics
//
// Order. Rules are enforced by tier priority (emergency 50, securityops
// 100, networkops 150, platform 200, application 250, baseline 253, plus
// Tier objects; a policy without tier is in application), then by policy
// priority, then by the rule's index in its policy's ingress or egress
// list, lowest first. Antrea leaves policies of equal priority unordered;
// here ties are broken by tier name, then policy kind, Namespace and name.
// EndpointRules lists ingress rules, then egress rules. A rule that can
// match no traffic (no peer address, or no port left) is not listed.
//
// Actions. The first matching rule decides: Allow, Drop or Reject. Pass
// skips every later rule that is not in the baseline tier: in Antrea it
// hands the decision to Kubernetes NetworkPolicies, then to the baseline
// tier, and Kubernetes NetworkPolicies never select ExternalEntities. Pass
// in a baseline policy is an Error. Traffic no rule decides is allowed
// (policyrules.DefaultAction): Antrea-native policies do not isolate the
// workloads they apply to. policyrules.Evaluate implements exactly this.
//
// Applied-to. spec.appliedTo, or every rule's own appliedTo (not both).
// Only externalEntitySelector selects ExternalEntities: podSelector, or
// namespaceSelector alone, selects Pods (as in Antrea's grouping index),
// which are not enforcement points here, nor are Services and Nodes. A
// namespaced policy applies only to ExternalEntities of its own Namespace:
// an appliedTo that would reach further (a namespaceSelector, or a Group
// with one) keeps only those and reports AppliedToOutsideNamespace.
//
// Peers. Selectors resolve to the IPs of the selected Pods or
// ExternalEntities: alone, in the policy's Namespace (NetworkPolicy) or in
// every Namespace (ClusterNetworkPolicy); with namespaceSelector, in the
// Namespaces it selects. namespaces {match: Self} selects in the Namespace
// of each endpoint the rule applies to, and sameLabels in the Namespaces
// that share the endpoint Namespace's values for the keys (none when it
// lacks a key). serviceAccount selects Pods by ServiceAccount. group names
// a Group of the policy's Namespace (NetworkPolicy) or a ClusterGroup; its
// selectors, ipBlocks and childGroups (one level, as Antrea allows) are
// resolved; a missing group holds nothing until it exists. ipBlock is cidr
// minus except, as a list of prefixes; an except outside its cidr is an
// Error. Peers are sorted, without overlaps and with adjacent blocks merged.
// No peer at all matches every address (AnyPeer). Peers the compiler cannot
// resolve (fqdn, nodeSelector, a group's serviceReference) match nothing,
// with a Warning; scope ClusterSet is ignored, with a Warning: an Antrea
// policy never matches remote resources (a FederatedNetworkPolicy does).
// Rules with toServices or l7Protocols cannot be enforced on an
// ExternalEntity: they are left out, with a Warning.
//
// Ports. port (number, or name), endPort, sourcePort and sourceEndPort for
// TCP (default), UDP and SCTP; ICMP type and code and IGMP from protocols.
// A named port resolves, as in Antrea's agent, against the endpoint's own
// ports for an ingress rule and against each peer's ports for an egress
// rule (peers that resolve alike share one compiled rule); a name that
// does not resolve is left out, and a rule left with no port matches
// nothing.
//
// Errors. A policy with an Error (unknown tier, bad ipBlock, selector,
// port or action, Pass in baseline, duplicate rule name, misplaced
// appliedTo) is not realised at all; PolicyStatus says why. It is compiled
// again when a tier or group it reads changes.
package policycompiler
