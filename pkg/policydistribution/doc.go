// Package policydistribution serves the policy compiler's rules to the
// enforcement points: each VM agent receives only its own VM's rules, the
// cloud controller only those of agentless VMs.
//
// The design follows Antrea's controller, which serves its internal
// NetworkPolicies to agents as a Kubernetes-style API that agents list and
// watch, filtered per node: here the policy controller serves a watch API
// over HTTPS itself (docs/policy-distribution.md says why not through the
// API server's aggregation layer).
//
//   - Hub holds, per externalNode, the full rules of its endpoints and the
//     recent changes, numbered by one generation counter in an epoch (one
//     per hub instance). Watchers pull at their own pace from it.
//   - Server authenticates every request by bearer token (Tokens, fed from
//     Secrets: a token stands for one VirtualMachine, or for the agentless
//     consumer), serves a watch stream of the caller's own scope only, and
//     takes agents' reports (version, interfaces, applied generation).
//   - A watch resumes from the client's epoch and generation: the server
//     sends the Updates after it, or a Sync when it cannot (another epoch, a
//     change no longer held). Updates carry only the rules that are new to
//     an endpoint (see package wire). Idle streams carry Bookmarks.
//   - Metrics and per-agent status (Server.Agents) make it observable.
//
// Subpackages: wire (the protocol), consumer (the client of agents and of
// the cloud controller), feeder (informers to compiler to hub), agenttoken
// and agentstatus (reconcilers), controlplane (wiring into a manager).
//
// # Usage
//
// See ExampleNewServer (the HTTPS API over a Hub) and ExampleHub_Watch (an
// in-process consumer: a Sync, then Updates applied to a wire.View).
package policydistribution
