package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the repository's top directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot find the source of the docs test")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// readDoc reads a file of the repository, given by its slash-separated path.
func readDoc(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("reading %s: %v", rel, err)
	}
	return string(b)
}

// table returns the body rows (cells trimmed) of the first Markdown table
// of md whose first header cell is header, and the header's cells.
func table(md, header string) (head []string, rows [][]string) {
	lines := strings.Split(md, "\n")
	for i, line := range lines {
		cells := splitRow(line)
		if len(cells) == 0 || cells[0] != header {
			continue
		}
		for _, l := range lines[i+2:] { // past the |---| line
			if !strings.HasPrefix(strings.TrimSpace(l), "|") {
				break
			}
			rows = append(rows, splitRow(l))
		}
		return cells, rows
	}
	return nil, nil
}

// splitRow splits a table row into its trimmed cells; nil when line is no
// row. A "|" inside a code span or escaped as "\|" separates nothing.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") {
		return nil
	}
	var cells []string
	var cell strings.Builder
	inCode := false
	for i := 1; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '`':
			inCode = !inCode
		case c == '\\' && i+1 < len(line) && line[i+1] == '|':
			cell.WriteByte(c)
			i++
			c = line[i]
		case c == '|' && !inCode:
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
			continue
		}
		cell.WriteByte(c)
	}
	return cells
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// codeSpans returns the contents of the code spans of a cell.
func codeSpans(cell string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// withoutFences removes fenced code blocks, whose text is not Markdown.
func withoutFences(md string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(line)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

var (
	inlineLink    = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	referenceLink = regexp.MustCompile(`(?m)^\s{0,3}\[[^\]]+\]:\s*(\S+)`)
	heading       = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*#*\s*$`)
	notSlug       = regexp.MustCompile(`[^\p{L}\p{N}\s_-]`)
)

// links returns the link targets of md, fenced code excluded.
func links(md string) []string {
	md = withoutFences(md)
	var out []string
	for _, re := range []*regexp.Regexp{inlineLink, referenceLink} {
		for _, m := range re.FindAllStringSubmatch(md, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// anchors returns the anchors GitHub gives md's headings: lower case,
// punctuation dropped, spaces as "-", a repeated one suffixed "-1", "-2"...
func anchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(withoutFences(md), -1) {
		text := codeSpan.ReplaceAllString(m[1], "$1")
		slug := strings.ReplaceAll(notSlug.ReplaceAllString(strings.ToLower(text), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}
