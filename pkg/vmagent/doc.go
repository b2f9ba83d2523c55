// Package vmagent is the VM agent of agented VMs: it receives its VM's
// compiled rules from the policy distribution server and enforces them in
// the VM's own firewall, nftables.
//
// The agent owns one table, "inet antreaplus", and nothing else of the
// ruleset. Every change replaces the whole table in one netlink batch, which
// the kernel applies as a single transaction: packets see the old rules or
// the new ones, never a mix, and a batch the kernel refuses leaves the old
// rules in force. The table's base chains accept established and related
// traffic first, so that replacing rules never cuts a connection that was
// allowed, then send the traffic of each enforcement point (by its
// addresses) to its chain, where the compiled rules follow in Antrea's
// order: Allow accepts, Drop drops, Reject answers TCP with a reset and
// everything else with ICMP administratively prohibited, Pass jumps over
// every later rule to the baseline tier's, and what no rule decides is
// accepted (policycompiler.DefaultAction).
//
// The last rules applied are saved to a state file. At start the agent
// enforces them before it reaches the server (a reboot, a crash), and while
// the server is unreachable it keeps them; it resumes its watch from their
// generation.
//
// # Usage
//
//	client, _ := consumer.New(consumer.Options{Server: url, TokenFile: tokenPath, CAFile: caPath})
//	agent, _ := vmagent.New(vmagent.Options{
//		Client:    client,
//		StatePath: "/var/lib/antreaplus/vm-agent/state.json",
//		Version:   version,
//	})
//	err := agent.Run(ctx) // until ctx ends; the rules stay in force after
//
// The firewall alone:
//
//	res, err := (&vmagent.NFTables{}).Apply(view) // one atomic batch
package vmagent
