// Package toolchain finds the binaries the project runs but does not ship:
// the Kubernetes control plane, etcd, kwok and kwokctl. hack/tools.sh builds
// them from source into a cache keyed by version; this package looks them up
// there and, when they are missing and the repository is at hand, runs the
// build itself, streaming its progress.
//
// # Usage
//
// See ExampleEnsure.
package toolchain
