package fences

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
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
			t.Errorf("%s links %s: move what it needs out of test infrastructure (docs/development.md, \"Layout and fences\")", prog, strings.Join(bad, ", "))
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

// TestAPILinksNoFramework checks that the API types link no controller
// framework and no client, and register their kinds without init(): a
// program that imports a type package gets the types and nothing else.
func TestAPILinksNoFramework(t *testing.T) {
	for pkg, linked := range depsOf(t, "./api/...") {
		bad := forbidden(linked, func(p string) bool {
			return within(p, "sigs.k8s.io/controller-runtime") || within(p, "k8s.io/client-go")
		})
		if len(bad) > 0 {
			t.Errorf("%s links %s: api/ registers its kinds with apimachinery's SchemeBuilder", pkg, strings.Join(bad, ", "))
		}
	}
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "api", "*", "*", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files under api/ (%v)", err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		parsed, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parsing %s: %v", f, err)
		}
		for _, d := range parsed.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				t.Errorf("%s: func init registers at import time; list the kinds in addKnownTypes (groupversion_info.go)", fset.Position(fn.Pos()))
			}
		}
	}
}

// pureDecisions are the packages that decide without side effects
// (docs/development.md, "Layout and fences"): election's rounds are pure too, but the
// package also holds the elector that renews Leases.
var pureDecisions = []string{
	"pkg/boundedload", "pkg/federation/health", "pkg/tenancy/claim", "pkg/tenancy/overlap",
	"pkg/networks", "pkg/serviceexport", "pkg/serviceexport/locality", "pkg/exportscope", "pkg/entityexport",
	"pkg/federatedpolicy/translate", "pkg/externaldns/records", "pkg/policycompiler",
	"pkg/policyrules", "pkg/cloud/inventory", "pkg/cloud/sgtranslate", "pkg/cloud/provider",
	"pkg/policydistribution/wire", "pkg/trace",
}

// typesOnly is what a pure decision may link besides the standard library
// and the other pure decisions: API types and apimachinery's (with what
// those link themselves: serialisation, klog through apimachinery's
// runtime).
func typesOnly(p string) bool {
	if !strings.Contains(strings.Split(p, "/")[0], ".") {
		return true // the standard library
	}
	for _, prefix := range []string{module + "/api", "k8s.io/api", "k8s.io/apimachinery", "k8s.io/utils",
		"k8s.io/klog", "sigs.k8s.io/mcs-api/pkg/apis", "sigs.k8s.io/json", "sigs.k8s.io/structured-merge-diff",
		"sigs.k8s.io/randfill", "sigs.k8s.io/yaml", "github.com/go-logr/logr", "github.com/fxamacker/cbor",
		"github.com/gogo/protobuf", "github.com/google/gofuzz", "github.com/json-iterator/go",
		"github.com/modern-go", "github.com/x448/float16", "gopkg.in/inf.v0", "golang.org/x/net",
		"golang.org/x/text", "go.yaml.in/yaml", "github.com/kylelemons/godebug", "github.com/google/go-cmp"} {
		if within(p, prefix) {
			return true
		}
	}
	for _, d := range pureDecisions {
		if within(p, module+"/"+d) {
			return true
		}
	}
	return false
}

// TestPureDecisionsLinkOnlyTypes checks the pure decisions' transitive
// imports: no client, controller framework, metrics or other behaviour
// package, so that a decision is tested by tables alone and its callers do
// not drag a controller in.
func TestPureDecisionsLinkOnlyTypes(t *testing.T) {
	var patterns []string
	for _, d := range pureDecisions {
		patterns = append(patterns, "./"+d)
	}
	deps := depsOf(t, patterns...)
	if len(deps) != len(pureDecisions) {
		t.Fatalf("go list found %d of the %d pure decisions: a package moved? Update pureDecisions", len(deps), len(pureDecisions))
	}
	for pkg, linked := range deps {
		if bad := forbidden(linked, func(p string) bool { return !typesOnly(p) }); len(bad) > 0 {
			t.Errorf("%s links %s: a pure decision imports only the standard library, API types and other pure decisions", pkg, strings.Join(bad, ", "))
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
