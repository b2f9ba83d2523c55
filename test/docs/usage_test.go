package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	exampleName = regexp.MustCompile(`\bExample\w*`)
	testFile    = regexp.MustCompile(`[\w./-]+_test\.go`)
)

// TestUsageSections checks every "# Usage" section of a package comment
// under cmd/, pkg/, internal/ and test/: usage is shown by compiled
// Example functions, so the section holds no code block and names an
// Example of the package (or, where none can be, a test file) that exists.
func TestUsageSections(t *testing.T) {
	root := repoRoot(t)
	for _, top := range []string{"cmd", "pkg", "internal", "test"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			if msg := checkUsage(t, root, p); msg != "" {
				t.Errorf("%s: # Usage: %s", filepath.ToSlash(rel), msg)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// checkUsage returns what is wrong with the "# Usage" section of file's
// package comment; "" when it has none or it is right.
func checkUsage(t *testing.T, root, file string) string {
	t.Helper()
	section := usageSection(t, file)
	if section == nil {
		return ""
	}
	names := 0
	for _, line := range section {
		if strings.HasPrefix(line, "//\t") {
			return "a code block: make it an Example in example_test.go and name it here (" + strings.TrimSpace(line[3:]) + ")"
		}
		for _, name := range exampleName.FindAllString(line, -1) {
			names++
			if !hasExample(t, filepath.Dir(file), name) {
				return "names " + name + ", which no test file of the package defines"
			}
		}
		for _, f := range testFile.FindAllString(line, -1) {
			names++
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(f))); err != nil {
				return "names " + f + ", which does not exist"
			}
		}
	}
	if names == 0 {
		return "names no Example function (nor a test file)"
	}
	return ""
}

// usageSection returns the lines of the "# Usage" section of the package
// comment of file (up to the next heading or the package clause); nil when
// there is none.
func usageSection(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var section []string
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "package "):
			return section
		case line == "// # Usage":
			in, section = true, []string{}
		case in && strings.HasPrefix(line, "// # "):
			in = false
		case in && !strings.HasPrefix(line, "//"):
			in, section = false, nil // not the package comment
		case in:
			section = append(section, line)
		}
	}
	return nil
}

// hasExample reports whether a test file of dir defines func name().
func hasExample(t *testing.T, dir, name string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "\nfunc "+name+"() {") {
			return true
		}
	}
	return false
}
