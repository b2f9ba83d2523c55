// Package feeder feeds the policy compiler from the API server: informers
// of Tiers, Groups, ClusterGroups, NetworkPolicies, ClusterNetworkPolicies,
// ExternalEntities, Namespaces and Pods hand every change to one
// policycompiler.Compiler, and the endpoints whose rules (or addresses)
// change are published to a policydistribution.Hub, one generation per
// batch of changes.
//
// The hub is marked ready only after the first complete compilation, once
// every informer has synced: an agent that connected earlier would be told
// to enforce part of its rules.
//
// # Usage
//
// See ExampleNew.
package feeder
