// Package sandbox runs a set of real Kubernetes clusters on the local
// machine for trying AntreaPlus and for its tests. Each cluster is started
// by kwokctl's binary runtime from the cached, source-built binaries (etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler and kwok, which
// simulates nodes and Pods), gets its own Pod and Service CIDRs and a few
// simulated nodes, and has the project's CRDs and the Multi-Cluster Services
// CRDs installed. One kubeconfig holds a context per cluster, member-1 ...
// member-N.
//
// # Usage
//
//	sb := sandbox.New(sandbox.Options{Dir: dir, Progress: os.Stderr})
//	state, err := sb.Up(ctx, 3)
//	defer sb.Down(ctx)
//	statuses := sb.Status(ctx)
//
// The local cloud: the emulator, AWS imported into member-1 and Azure into
// member-2 (each with its policy and cloud controllers), and their agented
// VMs played in network namespaces with VM agents (root):
//
//	err = sb.StartCloud(ctx, sandbox.CloudOptions{Emulator: emu, Controller: ctl, PolicyController: pc})
//	err = sb.StartVMAgents(ctx, sandbox.VMAgentOptions{Agent: agent, Helper: antreaplus})
//	res, err := sb.Probe(ctx, "dev-build-1", "azure-dev-build-1:8080", 3*time.Second)
package sandbox
