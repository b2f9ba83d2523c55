package e2e

import (
	"testing"

	"antreaplus.io/antreaplus/test/framework"
)

// TestMain removes the programs the tests built (framework.Binary).
func TestMain(m *testing.M) { framework.MainWithoutClusters(m) }
