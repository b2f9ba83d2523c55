// Package dnsforward is the VM agent's DNS forwarder and the management of
// the VM's resolver file, so that an agented VM resolves clusterset.local
// and federation names through its member's DNS server with no hand
// configuration.
//
// The Forwarder listens on UDP and TCP (DefaultListen, 127.0.0.153:53) and
// sends:
//
//   - names under its zones (DefaultZones: clusterset.local. and
//     cluster.local.) to the member's DNS server, over TCP, so that a TCP
//     path (a relay, a firewall opening one port) is all a VM needs;
//   - every other name to the VM's previous resolvers, in turn, over the
//     client's transport.
//
// A query that no server of its route answers within the timeout
// (DefaultTimeout per server) gets SERVFAIL; answers larger than a UDP
// client takes are truncated (TC), and the client asks again over TCP.
//
// The rules of the resolver file, pure functions:
//
//   - Rewrite points the file at the forwarder: a Marker line, the
//     forwarder's nameserver, then two of the original nameservers, which
//     the resolver asks only when the forwarder does not answer (the agent
//     is down: names outside the zones still resolve), then the original's
//     search, domain and options lines (without "rotate").
//   - PlanResolvConf decides what to write: a file without the Marker is
//     the original (first run, or a DHCP client rewrote it) and is pointed
//     at the forwarder; a managed file is left alone when it is as wanted;
//     when the agent stops managing it, the original comes back. The
//     original is kept in the agent's state; when that is lost, Unmanage of
//     the managed file stands for it.
//   - Upstreams are the original's nameservers (127.0.0.1 when it names
//     none, as the resolver's default).
//
// WriteInPlace writes the file through its inode, never by rename: in a
// network namespace run with "ip netns exec", /etc/resolv.conf is a bind
// mount of /etc/netns/<ns>/resolv.conf, which a rename cannot replace.
//
// # Usage
//
// See ExampleListen (a forwarder and its routes) and ExamplePlanResolvConf
// (a resolver file pointed at it and put back).
package dnsforward
