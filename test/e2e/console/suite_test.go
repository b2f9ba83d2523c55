// Package console tests the web console end to end: a real headless
// Chromium (Debian's chromium, driven through chromedp) on the console's
// pages, served in process against a real federation of three sandbox
// clusters (two supervisors with their federation managers, a member
// controller in every member): every view renders the members' real
// objects, follows their changes without a reload (a Service exported, a
// supervisor killed, a policy refused), marks what the user may not read
// and what does not answer, and the in-cluster console refuses who is not
// signed in. Each view's screenshot is written (ANTREAPLUS_SCREENSHOTS=dir:
// docs/console's).
package console

import (
	"context"
	"sync"
	"testing"
	"time"

	"antreaplus.io/antreaplus/test/framework"
)

var clusters *framework.Clusters

const (
	nClusters    = 3
	nSupervisors = 2
)

// managerArgs shorten the waits: an unreachable member is marked so after
// 15 s, a hand-over is asked 3 s after a manager starts.
var managerArgs = []string{"--unreachable-grace=15s", "--status-period=1s", "--handover-hold-down=3s"}

func TestMain(m *testing.M) {
	framework.Main(m, nClusters, &clusters)
}

var (
	fedOnce sync.Once
	fed     *framework.Federation
	fedErr  error
)

// federation forms the federation and starts the member controllers once
// for the package, then waits until every member is led.
func federation(t testing.TB) *framework.Federation {
	t.Helper()
	fedOnce.Do(func() {
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		defer cancel()
		if fed, fedErr = clusters.Federate(ctx, "console-e2e", nSupervisors, managerArgs...); fedErr != nil {
			return
		}
		fedErr = clusters.StartMemberControllers()
	})
	if fedErr != nil {
		t.Fatalf("forming the federation: %v", fedErr)
	}
	fed.LogManagersOnFailure(t)
	fed.WaitAllLed(t, 60*time.Second)
	return fed
}
