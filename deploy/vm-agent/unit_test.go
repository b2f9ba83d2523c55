package vmagentpkg

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseUnit(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		env        []Assignment
		file       string
		command    []string
		stateDir   string
		err        string
	}{
		{
			name: "continued lines, comments, other sections",
			text: "# c\n[Unit]\nDescription=x\n\n[Service]\n; c\nEnvironment=A=1 \"B=2 3\"\nEnvironment=C=\nEnvironmentFile=/etc/e\n" +
				"ExecStart=/bin/a --a=${A} \\\n# skipped\n    --b=${B} \\\n    $C\nStateDirectory=x/y\n",
			env: []Assignment{{"A", "1"}, {"B", "2 3"}, {"C", ""}}, file: "/etc/e", stateDir: "x/y",
			command: []string{"/bin/a", "--a=1", "--b=2 3"},
		},
		{name: "an empty Environment= resets", text: "[Service]\nEnvironment=A=1\nEnvironment=\nEnvironment=B=2\nEnvironmentFile=/e\nExecStart=/a ${A}${B}\n",
			env: []Assignment{{"B", "2"}}, file: "/e", command: []string{"/a", "2"}},
		{name: "no ExecStart", text: "[Service]\nEnvironmentFile=/e\n", err: "one ExecStart"},
		{name: "two ExecStart", text: "[Service]\nEnvironmentFile=/e\nExecStart=/a\nExecStart=/b\n", err: "one ExecStart"},
		{name: "no EnvironmentFile", text: "[Service]\nExecStart=/a\n", err: "no EnvironmentFile"},
		{name: "optional EnvironmentFile", text: "[Service]\nEnvironmentFile=-/e\nExecStart=/a\n", err: "absolute path"},
		{name: "bad Environment", text: "[Service]\nEnvironment=A\nEnvironmentFile=/e\nExecStart=/a\n", err: "NAME=value"},
		{name: "bad StateDirectory", text: "[Service]\nEnvironmentFile=/e\nExecStart=/a\nStateDirectory=../x\n", err: "relative"},
		{name: "key outside a section", text: "A=b\n", err: "line 1"},
		{name: "bad section", text: "[Service\n", err: "line 1"},
	} {
		u, err := ParseUnit([]byte(tc.text))
		if !errorIs(err, tc.err) {
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		if got := u.Command(u.Env(nil)); !reflect.DeepEqual(u.Environment, tc.env) || u.EnvironmentFile != tc.file ||
			!slices.Equal(got, tc.command) || u.StateDirectory != tc.stateDir {
			t.Errorf("%s: env %v, file %q, command %q, state %q; want %v, %q, %q, %q", tc.name, u.Environment,
				u.EnvironmentFile, got, u.StateDirectory, tc.env, tc.file, tc.command, tc.stateDir)
		}
	}
}

// TestPackagedUnit checks the unit the package installs: its command is
// the packaged binary with the flags of the agent that the env file sets,
// every variable it uses has a default or is documented in the env file,
// and the env file's commented defaults are the unit's.
func TestPackagedUnit(t *testing.T) {
	u, err := PackagedUnit()
	if err != nil {
		t.Fatal(err)
	}
	file, err := ParseEnvFile(EnvFile())
	if err != nil {
		t.Fatalf("env: %v", err)
	}
	got := u.Command(u.Env(file))
	want := []string{Binary, "--server=", "--token-file=/etc/antreaplus/vm-agent/token", "--ca-file=/etc/antreaplus/vm-agent/ca.crt",
		"--state-file=/var/lib/antreaplus/vm-agent/state.json", "--resolv-conf=/etc/resolv.conf"}
	if !slices.Equal(got, want) {
		t.Errorf("the packaged command is %q, want %q", got, want)
	}
	documented := map[string]bool{}
	defaults := u.Env(nil)
	for _, l := range strings.Split(string(EnvFile()), "\n") {
		a, err := parseAssignment(strings.TrimPrefix(l, "#"))
		if err != nil {
			continue // a comment
		}
		documented[a.Name] = true
		if d, ok := defaults[a.Name]; ok != strings.HasPrefix(l, "#") || ok && a.Value != d {
			t.Errorf("env: %q: want the unit's defaults commented out, as they are (%s=%q), and the rest set", l, a.Name, d)
		}
	}
	for _, w := range u.ExecStart {
		for _, name := range w.vars() {
			if !documented[name] {
				t.Errorf("ExecStart uses %s, which the env file does not document", name)
			}
		}
	}
	for _, want := range []Entry{
		{Section: "Unit", Key: "After", Value: "network-online.target"},
		{Section: "Unit", Key: "Wants", Value: "network-online.target"},
		{Section: "Service", Key: "Type", Value: "simple"},
		{Section: "Service", Key: "Restart", Value: "always"},
		{Section: "Service", Key: "StateDirectory", Value: "antreaplus/vm-agent"},
		// nftables through netlink, and the DNS forwarder on port 53
		{Section: "Service", Key: "CapabilityBoundingSet", Value: "CAP_NET_ADMIN CAP_NET_BIND_SERVICE"},
		// /etc stays writable: the agent rewrites /etc/resolv.conf in place
		{Section: "Service", Key: "ProtectSystem", Value: "true"},
		{Section: "Install", Key: "WantedBy", Value: "multi-user.target"},
	} {
		if got := u.Value(want.Section, want.Key); got != want.Value {
			t.Errorf("[%s] %s=%s, want %s", want.Section, want.Key, got, want.Value)
		}
	}
	if u.Value("Service", "ExecStopPost") != "" {
		t.Error("the unit uninstalls the agent when it stops: removal does (prerm)")
	}
}
