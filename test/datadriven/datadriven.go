package datadriven

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rewrite makes RunTest write the actual outputs back into the files.
var rewrite = flag.Bool("rewrite", false, "rewrite the expected outputs of the testdata files")

// Rewriting tells whether the tests run with -rewrite, for golden files
// in formats of their own (the chart's RBAC files): write, do not compare.
func Rewriting() bool { return *rewrite }

// TestData is one case of a testdata file.
type TestData struct {
	// Pos is "file:line" of the case's "----" line.
	Pos string
	// Command is the command line; Cmd its first word, CmdArgs the others.
	Command string
	Cmd     string
	CmdArgs []string
	// Input are the lines between the command line and the "----" line.
	Input []string
	// Expected are the lines after the "----" line, up to a blank line.
	Expected []string

	// outputAt is the index, in the file's lines, of the "----" line;
	// outputTo that of the line after the expected output.
	outputAt, outputTo int
}

// Walk runs f, as a subtest named after the file less ".txt", for every
// dir/*.txt file. It fails the test when there is none.
func Walk(t *testing.T, dir string, f func(t *testing.T, file string)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) { f(t, file) })
	}
}

// RunTest runs the cases of file in order through f, and compares what f
// returns with each case's expected output; with -rewrite, it writes what f
// returned into the file instead.
func RunTest(t *testing.T, file string, f func(t *testing.T, d *TestData) []string) {
	t.Helper()
	lines, err := readLines(file)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := parse(file, lines)
	if err != nil {
		t.Fatal(err)
	}
	outputs := make([][]string, len(cases))
	for i, d := range cases {
		outputs[i] = f(t, d)
		if *rewrite {
			continue
		}
		if got, want := strings.Join(outputs[i], "\n"), strings.Join(d.Expected, "\n"); got != want {
			t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", d.Pos, d.Command, got, want)
		}
	}
	if *rewrite {
		if err := os.WriteFile(file, []byte(strings.Join(rewritten(lines, cases, outputs), "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func readLines(file string) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		lines = append(lines, s.Text())
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return lines, nil
}

// parse splits the lines of file into cases.
func parse(file string, lines []string) ([]*TestData, error) {
	var cases []*TestData
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "" || strings.HasPrefix(lines[i], "#") {
			continue
		}
		fields := strings.Fields(lines[i])
		d := &TestData{Command: lines[i], Cmd: fields[0], CmdArgs: fields[1:]}
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			d.Input = append(d.Input, lines[i])
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s: case %q has no ---- line", file, d.Command)
		}
		d.outputAt, d.Pos = i, fmt.Sprintf("%s:%d", file, i+1)
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			d.Expected = append(d.Expected, lines[i])
		}
		d.outputTo = i
		cases = append(cases, d)
	}
	return cases, nil
}

// rewritten is the file's lines with the expected output of each case
// replaced by its actual output.
func rewritten(lines []string, cases []*TestData, outputs [][]string) []string {
	var out []string
	next := 0
	for i, d := range cases {
		out = append(out, lines[next:d.outputAt+1]...)
		out = append(out, outputs[i]...)
		next = d.outputTo
	}
	return append(out, lines[next:]...)
}
