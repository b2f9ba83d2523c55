// Package controlplane wires the policy distribution into a
// controller-runtime manager, as the policy controller of a member cluster
// runs it: the feeder (API objects to compiled rules), the HTTPS server of
// the distribution API, the reconcilers of agent token Secrets and of the
// VirtualMachines' agent status, and the agentless consumer's token.
//
// # Usage
//
// See ExampleSetup.
package controlplane
