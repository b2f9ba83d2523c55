package serviceimport

import (
	"testing"

	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"antreaplus.io/antreaplus/test/framework"
)

// The controller runs here against two real clusters, with a federation
// view, a registry and an election the tests control (package leadertest).
// Both are IPv4-only, so that an IPv6 export is not supported
// (test/e2e/services has dual-stack members).

var clusters *framework.Clusters

func TestMain(m *testing.M) {
	log.SetLogger(klog.Background())
	framework.MainWith(m, 2, &clusters, framework.Options{SingleStack: []string{"member-1", "member-2"}})
}
