// Package cloud tests the cloud controller end to end against a real
// kube-apiserver (with the controller-manager's garbage collector), the
// real AWS and Azure SDK providers, and the EC2 and ARM emulators served
// in-process: accounts and their credentials, selectors and their binding,
// the inventory following the cloud through faults, and the ExternalEntity
// controller.
//
// Each test runs its own controller, in-process, watching only the test's
// namespaces, with a short poll interval; writes to the API server are
// counted through the controller's client.
package cloud

import (
	"io"
	"os"
	"testing"

	"k8s.io/klog/v2/textlogger"
	ctrl "sigs.k8s.io/controller-runtime"

	"antreaplus.io/antreaplus/test/framework"
)

var (
	clusters *framework.Clusters
	// logs holds everything the controllers logged, debug included, so
	// that tests can check no secret ever shows there.
	logs framework.LockedBuffer
)

func TestMain(m *testing.M) {
	// The controllers' logs also show with ANTREAPLUS_TEST_VERBOSE set.
	var out io.Writer = &logs
	if os.Getenv("ANTREAPLUS_TEST_VERBOSE") != "" {
		out = io.MultiWriter(&logs, os.Stderr)
	}
	ctrl.SetLogger(textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(out), textlogger.Verbosity(5))))
	framework.Main(m, 1, &clusters)
}
