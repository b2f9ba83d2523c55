package fences

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// metricsRegistries are what a library would register on by itself with:
// controller-runtime's global registry, Prometheus's default one (promauto,
// DefaultRegisterer), or a MustRegister that panics instead of returning
// the error to the program.
var (
	metricsImports = []string{"sigs.k8s.io/controller-runtime/pkg/metrics", "github.com/prometheus/client_golang/prometheus/promauto"}
	metricsCalls   = []string{"DefaultRegisterer", "DefaultGatherer", "MustRegister"}
)

// TestLibrariesRegisterNoMetricsByThemselves checks the metrics convention
// (docs/development.md, "Metrics") in pkg/ and internal/, test files
// excluded: a package registers its metrics only in its RegisterMetrics, on
// the registry the program passes, so no library imports a global registry
// or calls MustRegister.
func TestLibrariesRegisterNoMetricsByThemselves(t *testing.T) {
	for pkg, files := range metricsSources(t, "./pkg/...", "./internal/...") {
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range append(metricsQuoted(metricsImports), metricsCalls...) {
				if strings.Contains(string(src), bad) {
					t.Errorf("%s (%s) uses %s: register metrics only in RegisterMetrics(reg prometheus.Registerer, ...) error, on the registry the program passes (docs/development.md, \"Metrics\")",
						pkg, filepath.Base(file), bad)
				}
			}
		}
	}
}

// metricsSources maps each package of the patterns to its Go files, test
// files excluded.
func metricsSources(t *testing.T, patterns ...string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}} {{.Dir}} {{join .GoFiles \" \"}}"}, patterns...)...)
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(patterns, " "), err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		for _, name := range f[2:] {
			m[f[0]] = append(m[f[0]], filepath.Join(f[1], name))
		}
	}
	if len(m) < 50 {
		t.Fatalf("go list found %d packages under pkg/ and internal/; want them all", len(m))
	}
	return m
}

// metricsQuoted is each import path as an import line spells it.
func metricsQuoted(paths []string) []string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = `"` + p + `"`
	}
	return q
}
