package translate

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rewrite regenerates the expected outputs of testdata/*.txt:
//
//	go test ./pkg/federatedpolicy/translate/ -run TestDataDriven -rewrite
var rewrite = flag.Bool("rewrite", false, "rewrite the expected outputs of testdata/*.txt")

// A testdata file is a sequence of cases, in the style of etcd-io/raft's
// interaction tests: a command line, input lines, a "----" line and the
// expected output, up to a blank line. Lines starting with "#" between
// cases are comments. Commands:
//
//	member ID [KEY=VALUE...]  this member's clusterID and labels; output: ok
//	apply                     upsert the YAML objects of the input (Namespace,
//	                          RemoteEntity, ServiceImport, EndpointSlice,
//	                          FederatedNetworkPolicy, ExternalEntity); output: ok
//	delete                    delete them; output: ok
//	translate NS/NAME         output: the derived policy, Groups and report
//	compile NS/NAME           the rules policycompiler compiles for the local
//	                          ExternalEntity NS/NAME from every policy's
//	                          derived objects
type dataCase struct {
	command  string
	input    []string
	expected []string
	outputAt int // index of the "----" line
	outputTo int
}

func TestDataDriven(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) { runDataFile(t, file) })
	}
}

func runDataFile(t *testing.T, file string) {
	lines, cases := parseDataFile(t, file)
	w := newWorld()
	var rewritten []string
	next := 0
	for _, dc := range cases {
		got := runDataCase(t, w, dc)
		if *rewrite {
			rewritten = append(rewritten, lines[next:dc.outputAt+1]...)
			rewritten = append(rewritten, got...)
			next = dc.outputTo
			continue
		}
		if want := strings.Join(dc.expected, "\n"); strings.Join(got, "\n") != want {
			t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s", file, dc.outputAt+1, dc.command, strings.Join(got, "\n"), want)
		}
	}
	if *rewrite {
		rewritten = append(rewritten, lines[next:]...)
		if err := os.WriteFile(file, []byte(strings.Join(rewritten, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func parseDataFile(t *testing.T, file string) ([]string, []dataCase) {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	for s := bufio.NewScanner(f); s.Scan(); {
		lines = append(lines, s.Text())
	}
	var cases []dataCase
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "" || strings.HasPrefix(lines[i], "#") {
			continue
		}
		dc := dataCase{command: lines[i]}
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			dc.input = append(dc.input, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("%s: case %q has no ---- line", file, dc.command)
		}
		dc.outputAt = i
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			dc.expected = append(dc.expected, lines[i])
		}
		dc.outputTo = i
		cases = append(cases, dc)
	}
	return lines, cases
}

func runDataCase(t *testing.T, w *world, dc dataCase) []string {
	fields := strings.Fields(dc.command)
	switch fields[0] {
	case "member":
		w.member = Member{ClusterID: fields[1], Labels: map[string]string{}}
		for _, kv := range fields[2:] {
			k, v, _ := strings.Cut(kv, "=")
			w.member.Labels[k] = v
		}
		return []string{"ok"}
	case "apply", "delete":
		w.apply(t, strings.Join(dc.input, "\n"), fields[0] == "delete")
		return []string{"ok"}
	case "translate":
		p, ok := w.policies[splitKey(fields[1])]
		if !ok {
			return []string{"no such policy"}
		}
		res := Translate(p, w.inputs())
		checkValid(t, res)
		return renderResult(t, res)
	case "compile":
		return compileFor(t, w, fields[1])
	}
	t.Fatalf("unknown command %q", dc.command)
	return nil
}
