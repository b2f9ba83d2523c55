// Package netns plays machines in named Linux network namespaces: it
// creates and deletes them with iproute2, links them with veth pairs and
// bridges, gives their interfaces addresses, runs commands inside them,
// opens sockets inside them from this process, and probes connections
// between them (connected, refused or dropped) against echo servers.
//
// Users: the sandbox (pkg/sandbox, for 'antreaplus sandbox up
// --vm-agents' and 'sandbox probe'), where every agented VM is a namespace
// on one bridge; the VM agent's nftables tests (pkg/vmagent), its end to
// end tests (test/e2e/vmagent) and the federated policy benchmark
// (test/bench/fedpolicybench). It is plumbing, not test infrastructure:
// the CLI links it.
//
// # Rules
//
//   - It imports nothing of the project; no product program but the CLI
//     links it (the VM agent programs nftables in the namespace it runs
//     in, given a descriptor, and knows nothing of how it was made).
//   - Creating, entering and deleting namespaces needs root and ip(8):
//     Check says so, and Create, Delete and Do fail with ErrNotRoot or a
//     missing program rather than with what ip(8) prints. Tests that
//     cannot run call Check first and fail (or skip) with its reason.
//   - Namespaces outlive this process, so they are named: a test names
//     them "<prefix><pid>-…" so that ReapOrphans can delete what a killed
//     run left behind.
//   - Sockets belong to the namespace of the thread that created them: Do
//     runs a function on a thread moved into the namespace, and Dial,
//     Listen and ListenPacket use it.
//
// # Usage
//
// See Example: two machines on a bridge, one serving TCP echo, the other
// probing it (compiled, not run: it needs root).
package netns
