// Package agentless tests agentless enforcement end to end: a real
// kube-apiserver, the policy controller's distribution (compiler, HTTPS
// watch, policy status writer) and the cloud controller (inventory,
// ExternalEntities and the agentless syncer) in-process, and the EC2
// emulator reached through the real aws-sdk-go-v2. A policy selecting an
// agentless VM's ExternalEntity becomes a security group on the VM's
// network interface; what security groups cannot express shows on the
// policy's status; drift in the cloud is corrected.
package agentless

import (
	"os"
	"testing"

	"k8s.io/klog/v2/textlogger"
	ctrl "sigs.k8s.io/controller-runtime"

	"antreaplus.io/antreaplus/test/framework"
)

var clusters *framework.Clusters

func TestMain(m *testing.M) {
	verbosity := 0
	if os.Getenv("ANTREAPLUS_TEST_VERBOSE") != "" {
		verbosity = 4
	}
	ctrl.SetLogger(textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(os.Stderr), textlogger.Verbosity(verbosity))))
	framework.Main(m, 1, &clusters)
}
