package vmsandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"antreaplus.io/antreaplus/test/e2e/e2ecli"

	vmagentpkg "antreaplus.io/antreaplus/deploy/vm-agent"
	"antreaplus.io/antreaplus/pkg/sandbox"
)

// agentCaps is the capability set of the packaged unit's bounding set
// (CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_BIND_SERVICE), as
// /proc/<pid>/status shows it.
const agentCaps = "0000000000001400"

// testAgentsRunAsPackaged checks that each VM's agent runs as the package's
// systemd unit runs it: the unit's ExecStart expanded with the VM's env
// file (in the packaged format, <sandbox>/vms/<vm>.env), with only the
// unit's capabilities and no new privileges.
func testAgentsRunAsPackaged(t *testing.T, c *e2ecli.CLI, vms []sandbox.AgentVM, agents map[string]int) { //nolint:thelper // the body of a subtest
	unit, err := vmagentpkg.PackagedUnit()
	if err != nil {
		t.Fatal(err)
	}
	for _, vm := range vms {
		pid := strconv.Itoa(agents[vm.Name])
		env, err := os.ReadFile(filepath.Join(c.Dir, "vms", vm.Name+".env"))
		if err != nil {
			t.Fatal(err)
		}
		file, err := vmagentpkg.ParseEnvFile(env)
		if err != nil {
			t.Fatalf("%s: %v", vm.Name, err)
		}
		cmdline, err := os.ReadFile("/proc/" + pid + "/cmdline")
		if err != nil {
			t.Fatal(err)
		}
		argv := strings.Split(string(bytes.TrimSuffix(cmdline, []byte{0})), "\x00")
		if want := unit.Command(unit.Env(file)); !slices.Equal(argv[1:], want[1:]) {
			t.Errorf("%s: the agent runs with %q, the unit would run it with %q", vm.Name, argv[1:], want[1:])
		}
		status, err := os.ReadFile("/proc/" + pid + "/status")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"CapEff:\t" + agentCaps, "CapBnd:\t" + agentCaps, "NoNewPrivs:\t1"} {
			if !strings.Contains(string(status), "\n"+want+"\n") {
				t.Errorf("%s: the agent's status has no %q:\n%s", vm.Name, want, status)
			}
		}
	}
}
