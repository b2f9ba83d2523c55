package services

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"antreaplus.io/antreaplus/test/framework"
)

var clusters *framework.Clusters

const (
	nClusters    = 3
	nSupervisors = 2
	// exporter3 is not a supervisor: its API server can be stopped without
	// stopping a federation manager's own registry.
	exporter3 = "member-3"
)

// managerArgs shorten the waits: members unreachable for 15 s are withdrawn.
var managerArgs = []string{"--unreachable-grace=15s", "--status-period=1s", "--handover-hold-down=3s"}

// singleStack are the members whose Services are IPv4 only; the others
// are dual-stack, so imports of both kinds of member are tested.
var singleStack = []string{"member-3"}

func TestMain(m *testing.M) {
	framework.MainWith(m, nClusters, &clusters, framework.Options{SingleStack: singleStack})
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
		if fed, fedErr = clusters.Federate(ctx, "services-e2e", nSupervisors, managerArgs...); fedErr != nil {
			return
		}
		if fedErr = giveNodesAddresses(clusters); fedErr != nil {
			return
		}
		fedErr = clusters.StartMemberControllers()
	})
	if fedErr != nil {
		t.Fatalf("forming the federation: %v", fedErr)
	}
	dumpLogsOnFailure(t)
	fed.WaitAllLed(t, 30*time.Second)
	return fed
}

// dumpLogsOnFailure prints the end of every manager's and member
// controller's log when the test fails: the sandbox directory goes with the run.
func dumpLogsOnFailure(t testing.TB) {
	t.Helper()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		logs, _ := filepath.Glob(filepath.Join(clusters.Sandbox.ManagerDir(), "*.log"))
		for _, l := range logs {
			raw, _ := os.ReadFile(l)
			lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
			t.Logf("--- last lines of %s:\n%s", filepath.Base(l), strings.Join(lines[max(0, len(lines)-25):], "\n"))
		}
	})
}
