// Package agenttoken issues the bearer tokens that policy distribution
// consumers prove who they are with. Every agented VirtualMachine gets a
// Secret "vm-agent-token-<vm>" in its namespace (type
// antreaplus.io/vm-agent-token, owned by the VM, removed when the VM goes or
// stops being agented); whoever installs the VM's agent copies its token to
// the VM. The cloud controller, the consumer of the agentless VMs' rules,
// reads the Secret "policy-distribution-agentless-consumer" of the
// controller's namespace.
//
// Revoking a token is deleting its Secret: the server stops accepting it at
// once and the reconciler issues a new one. Tokens feeds the server's
// Authenticator from these Secrets.
//
// # Usage
//
// See ExampleReconciler and ExampleSecretName.
package agenttoken
