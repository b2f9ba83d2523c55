// Package federation tests the federation end to end: real clusters, real
// federation manager processes, and the faults the managers must survive.
package federation

import (
	"context"
	"sync"
	"testing"
	"time"

	"antreaplus.io/antreaplus/test/framework"
)

var clusters *framework.Clusters

// Four clusters, three of them supervisors.
const (
	nClusters    = 4
	nSupervisors = 3
)

// managerArgs shorten the waits the tests sit through; the Lease timings stay the defaults.
var managerArgs = []string{"--handover-hold-down=3s", "--unreachable-grace=20s", "--status-period=1s"}

func TestMain(m *testing.M) {
	framework.Main(m, nClusters, &clusters)
}

var (
	fedOnce sync.Once
	fed     *framework.Federation
	fedErr  error
)

// federation forms the federation once for the package and waits until every member is led.
func federation(t *testing.T) *framework.Federation {
	t.Helper()
	fedOnce.Do(func() {
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		defer cancel()
		fed, fedErr = clusters.Federate(ctx, "e2e", nSupervisors, managerArgs...)
	})
	if fedErr != nil {
		t.Fatalf("forming the federation: %v", fedErr)
	}
	fed.LogManagersOnFailure(t)
	fed.WaitAllLed(t, 30*time.Second)
	return fed
}
