// Package livetrace is the policy controller's reconciler of Trace objects
// (policy.antreaplus.io/v1alpha1): for each enforcement point of the
// Trace's Namespace in this member on the flow's way, it computes the
// verdict from the rules the controller serves the point's enforcer (the
// hub's compiled rules: nothing is compiled again), and, for a live Trace,
// asks the VM agents through the distribution server to send the flow
// (the source) or watch for it (the destination), and writes what the
// kernel's nftables tracing saw decide the real packet beside the computed
// verdict, flagging a difference. Decisions are pure (Compute, Observe,
// FlowVerdict, RuleText: decide.go); the reconciler reads, decides and
// writes. See docs/trace.md.
package livetrace
