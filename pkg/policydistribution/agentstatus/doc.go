// Package agentstatus writes what VM agents report, through the policy
// distribution server, into their VirtualMachines' status: status.agent
// (version, interfaces, applied policy generation) and the conditions
// AgentConnected and PolicyRealized. Agents never write to the API server
// themselves; they only hold a token for the distribution server.
//
// PolicyRealized is True when the agent reports enforcing the newest change
// of its VM's rules, False with reason ApplyFailed, Pending (an older
// generation) or AgentNotConnected otherwise. After the policy controller
// starts, agents get a grace period to reconnect before their VMs are
// reported as without an agent.
//
// # Usage
//
// See ExampleReconciler.
package agentstatus
