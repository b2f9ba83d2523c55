// Package trace computes why a flow is allowed or dropped, hop by hop: the
// name resolution, the addresses the packet carries on its leg (private
// over flat networks, public and egress ones otherwise: docs/networks.md),
// then the source's egress enforcement point and the destination's ingress
// one, each deciding by exactly the compiled rules its enforcer receives
// (policyrules.Evaluate): the verdict and the tier, policy and rule that
// decided it, with the FederatedNetworkPolicy a derived policy came from,
// or "no rule: default allow".
//
// It is pure: the caller (antreaplus trace) reads the members, compiles
// their policies with policycompiler, and hands the workloads and points
// over. See docs/trace.md.
package trace
