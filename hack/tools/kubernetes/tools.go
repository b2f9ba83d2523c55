//go:build tools

// Package tools pins the Kubernetes control plane and etcd sources that the
// sandbox and the integration tests run. hack/tools.sh builds them into a
// version-keyed cache; nothing in the project imports this package.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
