package manager

import (
	"testing"

	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"antreaplus.io/antreaplus/test/framework"
)

// The manager runs here in-process in member-1, the federation's one
// supervisor, against two real clusters; member-2 is reached through a TCP
// proxy the tests cut to play an outage of its API server.

var clusters *framework.Clusters

func TestMain(m *testing.M) {
	log.SetLogger(klog.Background())
	framework.MainWith(m, 2, &clusters, framework.Options{Light: true}) // light members: the federation needs only their API servers
}
