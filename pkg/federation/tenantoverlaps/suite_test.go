package tenantoverlaps

import (
	"testing"

	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"antreaplus.io/antreaplus/test/framework"
)

// The controller runs here in a real federation manager, in-process in
// member-1, the federation's one supervisor, which leads member-1 and
// member-2 with their federation accounts (`antreaplus federation create`
// and `join`): the members' caches, the account's rights and the
// manager's view of every member are the production ones.

var clusters *framework.Clusters

func TestMain(m *testing.M) {
	log.SetLogger(klog.Background())
	framework.MainWith(m, 2, &clusters, framework.Options{Light: true}) // light members: the federation needs only their API servers
}
