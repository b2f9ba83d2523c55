package packages

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	vmagentpkg "antreaplus.io/antreaplus/deploy/vm-agent"
)

// exposure is the most systemd-analyze security may rate the unit's
// exposure, in tenths (it rates 2.6 of 10: "OK").
const exposure = "30"

// checkUnit checks the unit the .deb unpacked in root installs: with
// systemd-analyze verify (its ExecStart pointed at the unpacked agent, as
// the real path does not exist here) and security (its hardening), when
// systemd-analyze is installed; else every key against the keys systemd
// knows of those it uses, and it says so.
func checkUnit(t *testing.T, root string) {
	t.Helper()
	unit, err := vmagentpkg.PackagedUnit()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Logf("systemd-analyze is not installed (Debian's systemd): the unit's keys are checked by this test alone")
		checkKeys(t, unit)
		return
	}
	local := filepath.Join(t.TempDir(), vmagentpkg.UnitName)
	data := bytes.Replace(vmagentpkg.UnitFile(), []byte("ExecStart="+vmagentpkg.Binary+" "), []byte("ExecStart="+filepath.Join(root, vmagentpkg.Binary)+" "), 1)
	if err := os.WriteFile(local, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(t.Context(), "systemd-analyze", "verify", local).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify %s: %v\n%s", vmagentpkg.UnitName, err, out)
	}
	out, err := exec.CommandContext(t.Context(), "systemd-analyze", "security", "--offline=true", "--root="+root,
		"--threshold="+exposure, vmagentpkg.UnitName).CombinedOutput()
	if err != nil {
		t.Errorf("systemd-analyze security: exposure above %s/100 (%v):\n%s", exposure, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	t.Logf("systemd-analyze security: %s", lines[len(lines)-1])
}

// knownKeys are the keys of systemd's unit, service and exec settings that
// the unit may use, by section.
var knownKeys = map[string][]string{
	"Unit": {"Description", "Documentation", "After", "Wants", "Requires", "Before"},
	"Service": {"Type", "Environment", "EnvironmentFile", "ExecStart", "Restart", "RestartSec", "StateDirectory",
		"StateDirectoryMode", "UMask", "CapabilityBoundingSet", "AmbientCapabilities", "NoNewPrivileges", "ProtectSystem",
		"ProtectHome", "PrivateTmp", "PrivateDevices", "PrivateMounts", "ProtectKernelTunables", "ProtectKernelModules",
		"ProtectKernelLogs", "ProtectControlGroups", "ProtectClock", "ProtectHostname", "RestrictNamespaces",
		"RestrictRealtime", "RestrictSUIDSGID", "LockPersonality", "MemoryDenyWriteExecute", "RestrictAddressFamilies",
		"SystemCallArchitectures", "SystemCallFilter", "SystemCallErrorNumber", "ReadWritePaths"},
	"Install": {"WantedBy"},
}

func checkKeys(t *testing.T, unit *vmagentpkg.Unit) {
	t.Helper()
	for _, e := range unit.Entries {
		if !strings.Contains(" "+strings.Join(knownKeys[e.Section], " ")+" ", " "+e.Key+" ") {
			t.Errorf("line %d: [%s] %s= is not a key systemd knows there (or not one this test knows)", e.Line, e.Section, e.Key)
		}
	}
}
