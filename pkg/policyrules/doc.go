// Package policyrules is the vocabulary of compiled policy rules: what an
// enforcement point (an ExternalEntity) enforces, and what a rule does to a
// packet. The policy compiler (package policycompiler) produces these
// rules, the wire format (package policydistribution/wire) carries them,
// and the enforcers (the VM agent, the cloud security-group translation)
// read them.
//
// It is a leaf: it imports only the standard library, neither the compiler
// nor the Kubernetes API types, so that a program that only enforces rules
// (cmd/vm-agent) links neither (test/fences checks it).
//
// # Usage
//
// See ExampleEvaluate.
//
// # Semantics
//
// A list of rules is in enforcement order (Priority: tier priority, then
// policy priority, then the rule's index in its policy). The first rule of
// the packet's direction that matches its peer and one of its ports
// decides: Allow, Drop or Reject. Pass skips every later rule that is not
// in the baseline tier. Traffic no rule decides gets DefaultAction (Allow):
// Antrea-native policies do not isolate what they apply to. Evaluate is
// the reference every enforcer is tested against.
package policyrules
