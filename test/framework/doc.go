// Package framework gives integration and end-to-end tests several real
// Kubernetes clusters: kube-apiservers, etcd, controller-managers and kwok
// started from the cached source-built binaries by the sandbox package, with
// the project's CRDs installed.
//
// A test package starts its clusters once, in TestMain, and every test works
// in namespaces of its own. Clean-up stops every process the package started,
// also when a test fails, panics or the run is interrupted; a later run
// removes what a killed run left behind.
//
// # Usage
//
// The compiled examples are the suites that use it: a TestMain calling Main
// with the number of clusters and the package's *Clusters, tests taking
// clients and namespaces of their own from it, as in
// pkg/federatedpolicy/suite_test.go (one cluster) and
// test/integration/federation/suite_test.go (three). A compiled example here
// would import the package from its own tests, which puts it in the cluster
// lane (hack/packages.sh).
package framework
