// Package consumer is the client side of the policy distribution: a VM
// agent, or the cloud controller for agentless VMs, watches the rules of
// its scope over HTTPS with a bearer token, resuming after every
// disconnection from the last generation it received, and (agents) reports
// what it enforces.
//
// # Usage
//
// See ExampleClient_Watch; package distributiontest serves a real server to
// test against.
package consumer
