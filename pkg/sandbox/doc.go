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
package sandbox
