// Package policystatus writes the status of every Antrea NetworkPolicy and
// ClusterNetworkPolicy: whether the compiler could realise it, and on how
// many of its enforcement points it is enforced, with the reason for each
// one where it is not.
//
// An enforcement point is an ExternalEntity that the policy's rules apply
// to. It is enforced by the VM agent of its externalNode (realised when
// the agent reports enforcing the generation at which the endpoint's
// rules last changed) or, for agentless VMs, by the cloud controller's
// security groups (realised when the agentless report covers that
// generation and has no Unrealized finding for the policy on that point).
//
// Besides Antrea's conditions (Realizable, RealizationFailure), the status
// has an Enforcers condition whose message names every enforcer (a VM
// agent "agent <namespace>/<vm>", or "agentless") with the state of its
// worst point (FormatEnforcers; ParseEnforcers reads it back): the member
// controller shows them as the enforcement points of a federated policy.
//
// The computation is pure (Point, AgentPoint, AgentlessPoint, Compute);
// the Writer reads the hub, the server and the compiler, calls it, and
// writes only the statuses that changed.
//
// # Usage
//
// See ExampleWriter and ExampleFormatEnforcers.
package policystatus
