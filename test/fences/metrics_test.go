package fences

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

var (
	metricOpts  = regexp.MustCompile(`prometheus\.(?:Counter|Gauge|Histogram|Summary)Opts\{([^}]*)\}`)
	metricName  = regexp.MustCompile(`\bName:\s*([^,\n}]+)`)
	metricDesc  = regexp.MustCompile(`prometheus\.NewDesc\(\s*([^,]+),`)
	literalName = regexp.MustCompile(`^"antreaplus_[a-z0-9_]+"$`)
)

// TestMetricNamesAreLiteral checks that every metric of pkg/ and internal/
// spells its whole name in one string literal starting antreaplus_, with
// no Namespace or Subsystem: a name read in the docs or on a dashboard is
// found by grep.
func TestMetricNamesAreLiteral(t *testing.T) {
	seen := 0
	for pkg, files := range metricsSources(t, "./pkg/...", "./internal/...") {
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range metricOpts.FindAllStringSubmatch(string(src), -1) {
				seen++
				if strings.Contains(m[1], "Subsystem:") || strings.Contains(m[1], "Namespace:") {
					t.Errorf("%s (%s): a metric built from Namespace and Subsystem; spell its whole name in Name", pkg, filepath.Base(file))
				}
				n := metricName.FindStringSubmatch(m[1])
				if n == nil || !literalName.MatchString(strings.TrimSpace(n[1])) {
					t.Errorf("%s (%s): metric name %v is not one literal \"antreaplus_...\"", pkg, filepath.Base(file), n)
				}
			}
			for _, m := range metricDesc.FindAllStringSubmatch(string(src), -1) {
				seen++
				if !literalName.MatchString(strings.TrimSpace(m[1])) {
					t.Errorf("%s (%s): metric name %s is not one literal \"antreaplus_...\"", pkg, filepath.Base(file), m[1])
				}
			}
		}
	}
	if seen < 50 {
		t.Fatalf("found %d metric definitions under pkg/ and internal/; the patterns no longer match the tree", seen)
	}
}
