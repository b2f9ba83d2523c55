package sandbox

import (
	"slices"
	"strings"
	"testing"

	vmagentpkg "antreaplus.io/antreaplus/deploy/vm-agent"
)

// TestVMAgentCommand checks the command line of a sandbox VM's agent: the
// packaged unit's, with the VM's env file, under the unit's privileges.
func TestVMAgentCommand(t *testing.T) {
	packaged, err := vmagentpkg.PackagedUnit()
	if err != nil {
		t.Fatal(err)
	}
	env, err := vmAgentEnv(vmAgentFiles{server: "https://127.0.0.1:40307", token: "/s b/vms/dev-1.token",
		ca: "/s b/cloud/member-1.policy-certs/ca.crt", state: "/s b/vms/dev-1.state.json"})
	if err != nil {
		t.Fatal(err)
	}
	setpriv := []string{"setpriv", "--bounding-set=-all,+net_admin,+net_bind_service", "--inh-caps=-all", "--no-new-privs", "--"}
	for _, tc := range []struct {
		name string
		unit string // "" : the packaged unit
		env  []byte
		want []string
		err  string
	}{
		{name: "the packaged unit", env: env, want: append(setpriv, "/bin/vm-agent", "--server=https://127.0.0.1:40307",
			"--token-file=/s b/vms/dev-1.token", "--ca-file=/s b/cloud/member-1.policy-certs/ca.crt",
			"--state-file=/s b/vms/dev-1.state.json", "--resolv-conf=/etc/resolv.conf", "--report-interval=15s")},
		{name: "the packaged env file", env: vmagentpkg.EnvFile(), want: append(setpriv, "/bin/vm-agent", "--server=",
			"--token-file=/etc/antreaplus/vm-agent/token", "--ca-file=/etc/antreaplus/vm-agent/ca.crt",
			"--state-file=/var/lib/antreaplus/vm-agent/state.json", "--resolv-conf=/etc/resolv.conf")},
		{name: "a bad env file", env: []byte("A=$B\n"), err: "env file: line 1"},
		{name: "another program", unit: "[Service]\nEnvironmentFile=/e\nExecStart=/bin/sh\nCapabilityBoundingSet=CAP_NET_ADMIN\n", err: "not the agent"},
		{name: "no bounding set", unit: "[Service]\nEnvironmentFile=/e\nExecStart=" + vmagentpkg.Binary + "\n", err: "no CapabilityBoundingSet"},
		{name: "privileges", unit: "[Service]\nEnvironmentFile=/e\nExecStart=" + vmagentpkg.Binary + " ${X}\nCapabilityBoundingSet=CAP_NET_RAW\n",
			env: []byte("X=y\n"), want: []string{"setpriv", "--bounding-set=-all,+net_raw", "--inh-caps=-all", "--", "/bin/vm-agent", "y"}},
		{name: "a bad capability", unit: "[Service]\nEnvironmentFile=/e\nExecStart=" + vmagentpkg.Binary + "\nCapabilityBoundingSet=~CAP_NET_RAW\n",
			err: "want CAP_ names"},
	} {
		unit := packaged
		if tc.unit != "" {
			if unit, err = vmagentpkg.ParseUnit([]byte(tc.unit)); err != nil {
				t.Fatal(err)
			}
		}
		got, err := vmAgentCommand(unit, tc.env, "/bin/vm-agent")
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, %v; want %q, error with %q", tc.name, got, err, tc.want, tc.err)
		}
	}
}
