// Package federation tests forming and dissolving a federation against
// three real clusters: create, join, leave and status of
// pkg/federation/membership and of the 'antreaplus federation' commands.
//
// The tests share the clusters and a ClusterMembership is cluster-wide, so
// they run one after the other and each starts from clusters that belong
// to no federation.
package federation

import (
	"testing"

	"antreaplus.io/antreaplus/test/framework"
)

var clusters *framework.Clusters

func TestMain(m *testing.M) {
	framework.Main(m, 3, &clusters)
}
