package cmd

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestReference checks that docs/cli.md is what the commands say
// (make generate writes it).
func TestReference(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", "..", "docs", "cli.md")
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the CLI reference: %v", err)
	}
	var want bytes.Buffer
	if err := WriteReference(&want, NewRoot(io.Discard, io.Discard)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want.Bytes()) {
		t.Errorf("docs/cli.md is stale: run 'make generate' (go run ./hack/clidocs) and commit it")
	}
}

// TestEveryCommandHasAnExample walks the commands help lists.
func TestEveryCommandHasAnExample(t *testing.T) {
	n := 0
	walk(NewRoot(io.Discard, io.Discard), func(c *cobra.Command) {
		n++
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no Example", c.CommandPath())
		}
	})
	if n < 25 {
		t.Fatalf("walked %d commands; the tree has more", n)
	}
}

// TestExamplesParse runs each example line's flags through its command's
// flag parser: an example never names a flag or command that is not there.
func TestExamplesParse(t *testing.T) {
	checked := 0
	walk(NewRoot(io.Discard, io.Discard), func(c *cobra.Command) {
		for _, line := range strings.Split(c.Example, "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "antreaplus ") {
				continue // a comment, or the command inside a shell construct
			}
			if i := strings.IndexAny(line, "|>"); i >= 0 {
				line = line[:i]
			}
			args := strings.Fields(line)[1:]
			root := NewRoot(io.Discard, io.Discard)
			cmd, rest, err := root.Find(args)
			if err != nil {
				t.Errorf("%s: example %q: %v", c.CommandPath(), line, err)
				continue
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Errorf("%s: example %q: %v", c.CommandPath(), line, err)
				continue
			}
			if cmd.Args != nil {
				if err := cmd.Args(cmd, cmd.Flags().Args()); err != nil {
					t.Errorf("%s: example %q: %v", c.CommandPath(), line, err)
				}
			}
			checked++
		}
	})
	if checked < 40 {
		t.Fatalf("checked %d example lines; the commands have more", checked)
	}
}
