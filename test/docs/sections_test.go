package docs

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sectionRef is a reference to a section of a document, the form the tree
// uses in comments and docs: docs/development.md, "Layout and fences" (the
// heading in quotes, after the file and a comma; comment markers and line
// breaks between them are allowed).
var sectionRef = regexp.MustCompile(`([A-Za-z0-9_./-]+\.md),\s+\\?"([^"\n\\]+)\\?"`)

// commentBreak joins the lines of a comment: a reference may wrap.
var commentBreak = regexp.MustCompile(`\n[ \t]*(//|#)?[ \t]*`)

// TestSectionReferences checks that every section a file of the tree cites
// by heading exists: Go sources, Markdown, YAML, shell and the Makefile. A
// heading renamed without its references fails here, as a dead link does in
// TestRelativeLinks.
func TestSectionReferences(t *testing.T) {
	root := repoRoot(t)
	checked := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") && name != ".ci" || name == "_output" || name == "bin" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(name) {
		case ".go", ".md", ".yml", ".yaml", ".sh":
		default:
			if name != "Makefile" && name != ".golangci.yml" {
				return nil
			}
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := commentBreak.ReplaceAllString(string(b), " ")
		for _, m := range sectionRef.FindAllStringSubmatch(text, -1) {
			checked++
			if msg := checkSection(t, rel, m[1], m[2]); msg != "" {
				t.Errorf("%s cites %s, %q: %s", rel, m[1], m[2], msg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("found no section reference at all: the pattern no longer matches the tree's form")
	}
}

// checkSection returns what is wrong with a reference from file rel to
// heading of doc ("" when a heading of doc says exactly that). doc is
// relative to the top (docs/x.md, README.md) or, for a Markdown file, to
// the citing file's directory.
func checkSection(t *testing.T, rel, doc, heading string) string {
	t.Helper()
	candidates := []string{doc}
	if strings.HasSuffix(rel, ".md") {
		candidates = append(candidates, path.Join(path.Dir(rel), doc))
	}
	for _, c := range candidates {
		b, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(c)))
		if err != nil {
			continue
		}
		for _, h := range headings(string(b)) {
			if strings.EqualFold(h, heading) {
				return ""
			}
		}
		return "no heading of " + c + " says that (headings: " + strings.Join(headings(string(b)), "; ") + ")"
	}
	return "no such document"
}

// statusMark is the state some headings end with: "*(built)*".
var statusMark = regexp.MustCompile(`\s*\*\([^)]*\)\*$`)

// headings are the texts of md's headings, code spans unwrapped, without a
// state mark.
func headings(md string) []string {
	var out []string
	for _, m := range heading.FindAllStringSubmatch(withoutFences(md), -1) {
		h := strings.TrimSpace(codeSpan.ReplaceAllString(m[1], "$1"))
		out = append(out, statusMark.ReplaceAllString(h, ""))
	}
	return out
}
