package serviceimport

import (
	"testing"

	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"antreaplus.io/antreaplus/test/framework"
)

// The controller runs here against two real clusters, with a federation
// view, a registry and an election the tests control (package leadertest).

var clusters *framework.Clusters

func TestMain(m *testing.M) {
	log.SetLogger(klog.Background())
	framework.Main(m, 2, &clusters)
}
