package docs

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "antreaplus.io/antreaplus"

// TestProgramsTable checks the programs table of docs/architecture.md
// against cmd/: a row per program, and its packages column exactly the
// pkg/ packages the program's own code imports.
func TestProgramsTable(t *testing.T) {
	head, rows := table(readDoc(t, "docs/architecture.md"), "program")
	pkgCol := slices.Index(head, "packages")
	if len(rows) == 0 || pkgCol < 0 {
		t.Fatalf("docs/architecture.md has no table with the header | program | ... | packages |")
	}
	programs := subdirs(t, "cmd")
	listed := map[string]bool{}
	for _, row := range rows {
		names := codeSpans(row[0])
		if len(names) != 1 || len(row) != len(head) {
			t.Errorf("docs/architecture.md: row %q: want %d cells, the first one program name in backticks", row, len(head))
			continue
		}
		name := names[0]
		listed[name] = true
		if !slices.Contains(programs, name) {
			t.Errorf("docs/architecture.md names program %q, but there is no cmd/%s", name, name)
			continue
		}
		want := programImports(t, name)
		got := pkgPaths(codeSpans(row[pkgCol]))
		if !slices.Equal(got, want) {
			t.Errorf("docs/architecture.md, program %s: packages column lists %q; cmd/%s imports %q", name, got, name, want)
		}
	}
	for _, p := range programs {
		if !listed[p] {
			t.Errorf("cmd/%s is missing from the programs table of docs/architecture.md", p)
		}
	}
}

// TestCodeMap checks README.md's code map: every path it names exists, and
// it names every directory under cmd/, pkg/, internal/, test/ and
// test/infrastructure/.
func TestCodeMap(t *testing.T) {
	_, rows := table(readDoc(t, "README.md"), "path")
	if len(rows) == 0 {
		t.Fatal("README.md has no code map (a table with the header | path | ... |)")
	}
	var named []string
	for _, row := range rows {
		spans := codeSpans(row[0])
		if len(spans) == 0 {
			t.Errorf("README.md code map: row %q names no path in backticks", row)
		}
		for _, p := range spans {
			p = strings.TrimSuffix(strings.TrimSuffix(p, "..."), "/")
			if _, err := os.Stat(filepath.Join(repoRoot(t), filepath.FromSlash(p))); err != nil {
				t.Errorf("README.md code map names %q, which does not exist (write paths in full from the top)", p)
			}
			named = append(named, p)
		}
	}
	for _, top := range []string{"cmd", "pkg", "internal", "test", "test/infrastructure"} {
		for _, d := range subdirs(t, top) {
			dir := top + "/" + d
			if !slices.ContainsFunc(named, func(p string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }) {
				t.Errorf("README.md code map does not name %s (or anything in it)", dir)
			}
		}
	}
}

// TestRelativeLinks checks that every relative link of README.md and
// docs/*.md reaches a file or directory, and a heading when it has an
// anchor.
func TestRelativeLinks(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	docs := []string{"README.md"}
	for _, f := range files {
		docs = append(docs, "docs/"+filepath.Base(f))
	}
	for _, doc := range docs {
		for _, link := range links(readDoc(t, doc)) {
			if err := checkLink(t, doc, link); err != "" {
				t.Errorf("%s: link %q: %s", doc, link, err)
			}
		}
	}
}

// checkLink returns what is wrong with link, a link of doc; "" when it is
// fine or not relative.
func checkLink(t *testing.T, doc, link string) string {
	t.Helper()
	if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
		return ""
	}
	target, anchor, _ := strings.Cut(link, "#")
	rel := doc
	if target != "" {
		rel = path.Join(path.Dir(doc), target)
		if strings.HasPrefix(rel, "../") {
			return "points outside the repository"
		}
	}
	info, err := os.Stat(filepath.Join(repoRoot(t), filepath.FromSlash(rel)))
	if err != nil {
		return "no such file: " + rel
	}
	if anchor == "" || info.IsDir() || !strings.HasSuffix(rel, ".md") {
		return ""
	}
	if !anchors(readDoc(t, rel))[anchor] {
		return "no heading of " + rel + " has the anchor #" + anchor
	}
	return ""
}

// subdirs lists the directories directly under dir (slash-separated, from
// the top), testdata and hidden ones excluded.
func subdirs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(repoRoot(t), filepath.FromSlash(dir)))
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "testdata" && !strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(e.Name(), "_") {
			out = append(out, e.Name())
		}
	}
	return out
}

// programImports returns, sorted, the pkg/ packages (as "pkg/...") imported
// by the non-test Go files of cmd/<program> and the directories below it.
func programImports(t *testing.T, program string) []string {
	t.Helper()
	root := filepath.Join(repoRoot(t), "cmd", program)
	set := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			if rel, ok := strings.CutPrefix(ip, module+"/"); ok && strings.HasPrefix(rel, "pkg/") {
				set[rel] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the imports of cmd/%s: %v", program, err)
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// pkgPaths returns, sorted and without duplicates, the spans that are pkg/
// paths.
func pkgPaths(spans []string) []string {
	var out []string
	for _, s := range spans {
		if strings.HasPrefix(s, "pkg/") {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
