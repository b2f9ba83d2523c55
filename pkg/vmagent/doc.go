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
// accepted (policyrules.DefaultAction).
//
// The last rules applied are saved to a state file. At start the agent
// enforces them before it reaches the server (a reboot, a crash), and while
// the server is unreachable it keeps them; it resumes its watch from their
// generation.
//
// # DNS
//
// When the policy distribution server offers its member's DNS server
// (wire.ReportResponse.DNSServer, from policy-controller --dns-server) and
// Options.DNS is set, the agent runs a DNS forwarder (package dnsforward)
// on 127.0.0.153:53, UDP and TCP, that sends clusterset.local and
// cluster.local to the member's DNS server over TCP and every other name to
// the VM's previous nameservers, and points the VM's resolver file at it:
// the file is rewritten in place (never renamed over: it may be a bind
// mount) with a marker line, the forwarder's nameserver, then two of the
// previous nameservers as fallbacks while the agent is down, and the
// previous search and options lines. The previous file and the member's
// server are kept in the state file, so that a restarted agent forwards at
// once, before the server answers. A file another program rewrote (a DHCP
// client) becomes the new original and is pointed at the forwarder again
// at the next check (every 10 s). When the server offers no DNS server, or
// Options.DNS is nil, the original file comes back and the forwarder stops;
// `vm-agent --uninstall` (UninstallDNS) puts it back too. With no DNS
// server offered, nothing of the VM's DNS is changed.
//
// A VM whose /etc/resolv.conf belongs to systemd-resolved (the stub,
// 127.0.0.53) should not have the file rewritten: resolved regenerates it.
// Run the agent with --resolv-conf= (the forwarder runs, the file is left
// alone) and route the zones to the forwarder with a drop-in,
// /etc/systemd/resolved.conf.d/antreaplus.conf:
//
//	[Resolve]
//	DNS=127.0.0.153
//	Domains=~clusterset.local ~cluster.local
//
// then `systemctl restart systemd-resolved`. resolved sends the names of
// those routing domains to 127.0.0.153 only. It also asks its global DNS
// servers for names no domain routes, beside the links' servers, and takes
// the first answer that succeeds: the forwarder, which then knows no
// upstream, answers those SERVFAIL, so the links' servers answer them.
//
// # Usage
//
// See ExampleNew (the agent, as cmd/vm-agent runs it) and
// ExampleNFTables_Apply (the firewall alone).
package vmagent
