// Package policycli tests 'antreaplus policy list' and 'antreaplus policy
// status' against two real clusters and a kubeconfig context whose API
// server does not answer: policies of every kind with the status their
// controllers would write, a member without the FederatedNetworkPolicy
// CRD, and the table and JSON the commands print.
package policycli

import (
	"testing"

	"antreaplus.io/antreaplus/test/framework"
)

var clusters *framework.Clusters

func TestMain(m *testing.M) {
	framework.Main(m, 2, &clusters)
}
