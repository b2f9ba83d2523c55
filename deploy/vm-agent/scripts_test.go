package vmagentpkg

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestScripts checks the maintainer scripts the package gets: every
// placeholder written, and valid sh (sh -n).
func TestScripts(t *testing.T) {
	for _, name := range ScriptNames() {
		script, err := Script(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p := placeholder.Find(script); p != nil {
			t.Errorf("%s: %s is left", name, p)
		}
		if out, err := exec.Command("sh", "-n", "-c", string(script)).CombinedOutput(); err != nil {
			t.Errorf("%s: sh -n: %v\n%s", name, err, out)
		}
	}
	if _, err := Script("preinst"); err == nil {
		t.Error("Script(preinst) is no error")
	}
	if _, err := RenderScript("a @NOPE@ b", &Unit{}); !errorIs(err, "line 1: the unit gives @NOPE@ no value") {
		t.Errorf("an unknown placeholder: %v", err)
	}
}

// TestShellMeansTheUnit runs the unit's environment and command as the
// maintainer scripts do, with sh, and checks that sh gives the command the
// arguments the unit gives it (Unit.Command), for several env files.
func TestShellMeansTheUnit(t *testing.T) {
	u, err := PackagedUnit()
	if err != nil {
		t.Fatal(err)
	}
	envFile := filepath.Join(t.TempDir(), "env")
	u.EnvironmentFile = envFile
	u.ExecStart = append([]Word{{Parts: []Part{{Text: "args"}}}}, u.ExecStart[1:]...)
	script, err := RenderScript("args() { for a; do printf '[%s]\\n' \"$a\"; done; }\nset -f\n@ENVIRONMENT@\n@UNINSTALL@\n", u)
	if err != nil {
		t.Fatal(err)
	}
	for _, values := range [][]Assignment{
		nil,
		{{"ANTREAPLUS_SERVER", "https://10.0.0.1:8443"}, {"ANTREAPLUS_CA_FILE", ""}, {"ANTREAPLUS_EXTRA_ARGS", "  --v=2   --dns=false * "}},
		{{"ANTREAPLUS_TOKEN_FILE", "/a b/t%1@x"}, {"ANTREAPLUS_RESOLV_CONF", "/etc/x,y=z"}},
	} {
		data, err := SetEnvFile(EnvFile(), values)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(envFile, data, 0o600); err != nil {
			t.Fatal(err)
		}
		file, _ := ParseEnvFile(data)
		want := append(u.Command(u.Env(file))[1:], "--uninstall")
		out, err := exec.Command("sh", "-c", string(script)).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", values, err, out)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
			got = append(got, strings.TrimSuffix(strings.TrimPrefix(l, "["), "]"))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%v: sh runs the command with %q, the unit with %q", values, got, want)
		}
	}
}
