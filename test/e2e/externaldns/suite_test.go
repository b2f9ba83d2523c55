package externaldns

import (
	"testing"

	"antreaplus.io/antreaplus/test/framework"
)

var clusters *framework.Clusters

// member is the one cluster ExternalDNS reads.
const member = "member-1"

func TestMain(m *testing.M) {
	framework.Main(m, 1, &clusters)
}
