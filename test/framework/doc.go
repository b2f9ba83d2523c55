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
//	var clusters *framework.Clusters
//
//	func TestMain(m *testing.M) {
//		framework.Main(m, 2, &clusters)
//	}
//
//	func TestSomething(t *testing.T) {
//		c := clusters.Client(t, "member-1")
//		ns := clusters.Namespace(t, "member-1")
//		...
//		framework.Eventually(t, 10*time.Second, func() error { ... })
//	}
package framework
