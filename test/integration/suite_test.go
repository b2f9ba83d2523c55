// Package integration tests the project's API against a real kube-apiserver:
// every CRD's schema and CEL rules must let valid objects in and refuse bad
// ones with the message a user needs.
package integration

import (
	"testing"

	"antreaplus.io/antreaplus/test/framework"
)

var clusters *framework.Clusters

func TestMain(m *testing.M) {
	framework.Main(m, 1, &clusters)
}
