package install

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"antreaplus.io/antreaplus/deploy/charts"
)

// literalKind is a kind the chart's templates and RBAC files name at the
// top level of a manifest.
var literalKind = regexp.MustCompile(`(?m)^kind: ([A-Za-z]+)\s*$`)

// TestChartKinds checks that the kinds chartKinds learns (those an upgrade
// prunes and an uninstall deletes) are every kind the chart's files name:
// a template of a new kind that no variant renders fails it.
func TestChartKinds(t *testing.T) {
	chart := charts.Antreaplus()
	var want []string
	add := func(kind string) {
		if !slices.Contains(want, kind) {
			want = append(want, kind)
		}
	}
	err := fs.WalkDir(chart, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(p, "crds/") || p == "Chart.yaml" || p == "values.yaml" {
			return err
		}
		data, err := fs.ReadFile(chart, p)
		if err != nil {
			return err
		}
		for _, m := range literalKind.FindAllStringSubmatch(string(data), -1) {
			add(m[1])
			if strings.HasPrefix(p, "files/rbac/") { // each rendered with its binding
				add(m[1] + "Binding")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	kinds, err := chartKinds("v1.34.4")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range kinds {
		got = append(got, k.Kind)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("chartKinds learns %v; the chart's files name %v: add values that render the missing kinds to kindVariants", got, want)
	}
}
