package datadriven

import (
	"slices"
	"strings"
	"testing"
)

func TestDataDriven(t *testing.T) {
	Walk(t, "testdata", func(t *testing.T, file string) {
		t.Helper()
		RunTest(t, file, func(t *testing.T, d *TestData) []string {
			t.Helper()
			switch d.Cmd {
			case "echo":
				return d.Input
			case "args":
				return d.CmdArgs
			}
			t.Fatalf("unknown command %q", d.Command)
			return nil
		})
	})
}

func TestParse(t *testing.T) {
	lines := strings.Split("# comment\n\ncmd x  y\nin\n----\nout\n\nnext\n----", "\n")
	cases, err := parse("f.txt", lines)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 {
		t.Fatalf("%d cases, want 2", len(cases))
	}
	d := cases[0]
	if d.Pos != "f.txt:5" || d.Cmd != "cmd" || !slices.Equal(d.CmdArgs, []string{"x", "y"}) ||
		!slices.Equal(d.Input, []string{"in"}) || !slices.Equal(d.Expected, []string{"out"}) {
		t.Errorf("case %+v", *d)
	}
	if cases[1].Cmd != "next" || len(cases[1].Expected) != 0 {
		t.Errorf("case %+v", *cases[1])
	}
	if _, err := parse("f.txt", []string{"cmd", "in"}); err == nil || !strings.Contains(err.Error(), `f.txt: case "cmd" has no ---- line`) {
		t.Errorf("parse without ----: %v", err)
	}
}

// TestRewritten: outputs equal to the expected ones give the file back line
// for line; another output replaces only its case's expected output.
func TestRewritten(t *testing.T) {
	lines, err := readLines("testdata/harness.txt")
	if err != nil {
		t.Fatal(err)
	}
	cases, err := parse("harness.txt", lines)
	if err != nil {
		t.Fatal(err)
	}
	outputs := make([][]string, len(cases))
	for i, d := range cases {
		outputs[i] = d.Expected
	}
	if got := rewritten(lines, cases, outputs); !slices.Equal(got, lines) {
		t.Errorf("rewritten with the expected outputs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(lines, "\n"))
	}
	outputs[1] = []string{"new"}
	got := rewritten(lines, cases, outputs)
	want := slices.Concat(lines[:cases[1].outputAt+1], []string{"new"}, lines[cases[1].outputTo:])
	if !slices.Equal(got, want) {
		t.Errorf("rewritten with a new output:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
