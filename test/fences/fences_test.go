package fences

import (
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const module = "antreaplus.io/antreaplus"

// repoRoot is the repository's top directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot find the source of the fences test")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// depsOf maps each package of the patterns to what it links: its transitive
// imports, test files excluded (one go list for all).
func depsOf(t *testing.T, patterns ...string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}"}, patterns...)...)
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list %s: %v\n%s", strings.Join(patterns, " "), err, stderr)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 {
			m[f[0]] = f[1:]
		}
	}
	return m
}

// forbidden returns the packages of list that one of the rules refuses.
func forbidden(list []string, refused func(string) bool) []string {
	var bad []string
	for _, p := range list {
		if refused(p) {
			bad = append(bad, p)
		}
	}
	return bad
}

func within(p, prefix string) bool { return p == prefix || strings.HasPrefix(p, prefix+"/") }

// cliOnly is what only the CLI (and the tests) may link: the sandbox, the
// toolchain it builds, and the network namespaces it plays VMs in.
func cliOnly(p string) bool {
	return within(p, module+"/pkg/sandbox") || within(p, module+"/pkg/toolchain") || within(p, module+"/internal/netns")
}

// TestProgramsLinkNoTestInfrastructure checks every program under cmd/: none
// links test/... or the testing package, and only the CLI links the sandbox,
// the toolchain and internal/netns.
func TestProgramsLinkNoTestInfrastructure(t *testing.T) {
	programs := depsOf(t, "./cmd/...")
	if len(programs) < 7 {
		t.Fatalf("go list found %d programs under cmd/; want the seven of docs/architecture.md", len(programs))
	}
	for prog, linked := range programs {
		cli := within(prog, module+"/cmd/antreaplus")
		bad := forbidden(linked, func(p string) bool {
			if p == "testing" || within(p, module+"/test") {
				return true
			}
			return !cli && cliOnly(p)
		})
		if len(bad) > 0 {
			t.Errorf("%s links %s: move what it needs out of test infrastructure (docs/development.md, Fences)", prog, strings.Join(bad, ", "))
		}
	}
}

// TestAPIImportsOnlyAPI checks that the API types depend on no other part of
// the project.
func TestAPIImportsOnlyAPI(t *testing.T) {
	for pkg, linked := range depsOf(t, "./api/...") {
		bad := forbidden(linked, func(p string) bool {
			return within(p, module) && !within(p, module+"/api")
		})
		if len(bad) > 0 {
			t.Errorf("%s links %s: api/ holds types only", pkg, strings.Join(bad, ", "))
		}
	}
}

// TestProductLinksNoTestInfrastructure checks the libraries too (pkg/ and
// internal/, test files excluded): only the sandbox and the toolchain, which
// the CLI and the tests use, may reach each other.
func TestProductLinksNoTestInfrastructure(t *testing.T) {
	for pkg, linked := range depsOf(t, "./pkg/...", "./internal/...") {
		dev := within(pkg, module+"/pkg/sandbox") || within(pkg, module+"/pkg/toolchain")
		bad := forbidden(linked, func(p string) bool {
			if p == "testing" || within(p, module+"/test") {
				return true
			}
			return !dev && cliOnly(p)
		})
		if len(bad) > 0 {
			t.Errorf("%s links %s: product packages never link test infrastructure", pkg, strings.Join(bad, ", "))
		}
	}
}
