package externaldns

import (
	"testing"

	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"antreaplus.io/antreaplus/test/framework"
)

var clusters *framework.Clusters

// member is the cluster ExternalDNS reads; the federation's tests export
// from it and from member2.
const (
	member  = "member-1"
	member2 = "member-2"
)

func TestMain(m *testing.M) {
	log.SetLogger(klog.Background())
	framework.Main(m, 2, &clusters)
}
