// Package vmagent tests agented enforcement end to end with real traffic:
// a real kube-apiserver holds VirtualMachines, ExternalEntities, Tiers and
// Antrea policies; the policy-controller process compiles and distributes
// them; every "VM" is a Linux network namespace on a bridge, running the
// vm-agent process, which programs the namespace's nftables; TCP and UDP
// connections between the namespaces succeed or fail as the policies say.
//
// It needs root (network namespaces, nftables) and iproute2 and nftables,
// which `make test` installs (hack/ensure-packages.sh). Under make test
// (ANTREAPLUS_REQUIRE_CLUSTERS=1) it fails, with the reason, when it cannot run.
package vmagent

import (
	"fmt"
	"os"
	"testing"

	"antreaplus.io/antreaplus/internal/netns"
	"antreaplus.io/antreaplus/test/framework"
)

var clusters *framework.Clusters

const cluster = "member-1"

func TestMain(m *testing.M) {
	if err := preflight(); err != nil {
		code := 0
		if os.Getenv(framework.RequireEnv) == "1" {
			fmt.Fprintf(os.Stderr, "FAIL: test/e2e/vmagent cannot run: %v\n", err)
			code = 1
		} else {
			fmt.Fprintf(os.Stderr, "SKIP: test/e2e/vmagent: %v\n", err)
		}
		os.Exit(code)
	}
	netns.ReapOrphans("apv-")
	framework.Main(m, 1, &clusters)
}

// preflight says why the package cannot run here: it needs root and the
// programs ip and nft (make test installs them: hack/ensure-packages.sh).
func preflight() error {
	if err := netns.Check("nft"); err != nil {
		return fmt.Errorf("it creates network namespaces and programs nftables: %w", err)
	}
	return nil
}

// namespacePrefix starts the names of every network namespace of this
// process: "apv-<pid>-".
func namespacePrefix() string { return fmt.Sprintf("apv-%d-", os.Getpid()) }

// binaries are the policy controller's and the VM agent's programs.
func binaries(t testing.TB) (controller, agent string) {
	t.Helper()
	controller, err := framework.Binary("policy-controller")
	if err != nil {
		t.Fatal(err)
	}
	if agent, err = framework.Binary("vm-agent"); err != nil {
		t.Fatal(err)
	}
	return controller, agent
}
