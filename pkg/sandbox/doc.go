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
// See Example (clusters up, federated, with their member processes, and
// down), ExampleSandbox_StartCloud (the local cloud: the emulator, AWS
// imported into member-1 and Azure into member-2, each with its policy and
// cloud controllers, and the agented VMs played in network namespaces with
// VM agents, as root) and ExamplePlan (the fixed layout of CIDRs and ports).
package sandbox
