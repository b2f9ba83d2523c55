// Package wire defines what the policy distribution server and its clients
// (VM agents, and the cloud controller for agentless VMs) exchange: watch
// Events that carry compiled rules per enforcement point, agent Reports,
// and the View a client builds from the events.
//
// Rules are named by their content (RuleID), so that an Update carries the
// new order of an endpoint's rules but only the bodies of the rules that
// are new to it: changing one rule of a thousand sends one rule.
//
// A Rule is the JSON form of a policyrules.CompiledRule, and its
// vocabulary (directions, actions, protocols, tiers) is package
// policyrules': wire imports neither the policy compiler nor the
// Kubernetes API types, so a VM agent links neither (test/fences).
//
// # Usage
//
// See ExampleView_Apply: a Sync and an Update applied to a client's View,
// the Update built on the server with NewEndpoint and Delta, and a resync.
package wire
