// Package vmagent tests agented enforcement end to end with real traffic:
// a real kube-apiserver holds VirtualMachines, ExternalEntities, Tiers and
// Antrea policies; the policy-controller process compiles and distributes
// them; every "VM" is a Linux network namespace on a bridge, running the
// vm-agent process, which programs the namespace's nftables; TCP and UDP
// connections between the namespaces succeed or fail as the policies say.
//
// It needs root (network namespaces, nftables) and iproute2 and nftables,
// which hack/ensure-packages.sh installs when they are missing.
package vmagent

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"antreaplus.io/antreaplus/pkg/vmagent/netnstest"
	"antreaplus.io/antreaplus/test/framework"
)

var clusters *framework.Clusters

const cluster = "member-1"

func TestMain(m *testing.M) {
	if os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "SKIP: test/e2e/vmagent needs root: it creates network namespaces and programs nftables")
		os.Exit(0)
	}
	if err := ensurePackages(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: nftables and iproute2 are missing and could not be installed: %v\n", err)
		os.Exit(1)
	}
	netnstest.ReapOrphans("apv-")
	framework.Main(m, 1, &clusters)
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// ensurePackages runs hack/ensure-packages.sh, then checks the programs.
func ensurePackages() error {
	cmd := exec.Command("bash", filepath.Join(repoRoot(), "hack", "ensure-packages.sh"), "nftables", "iproute2")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return err
	}
	for _, prog := range []string{"ip", "nft"} {
		if _, err := exec.LookPath(prog); err != nil {
			return err
		}
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
