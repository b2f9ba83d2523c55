package policycompiler

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rewrite regenerates the expected outputs of testdata/*.txt:
//
//	go test ./pkg/policycompiler/ -run TestDataDriven -rewrite
var rewrite = flag.Bool("rewrite", false, "rewrite the expected outputs of testdata/*.txt")

// A testdata file is a sequence of cases, in the style of etcd-io/raft's
// interaction tests. A case is a command line, input lines, a "----" line
// and the expected output, up to a blank line. Lines starting with "#"
// between cases are comments. Commands:
//
//	apply              upsert the YAML objects of the input; output: Changed()
//	delete             delete the YAML objects of the input; output: Changed()
//	rules EP           output: the rules of endpoint EP
//	verdict EP         input: "ingress|egress IP PROTOCOL [PORT|TYPE/CODE]" lines;
//	                   output: the Decision of Evaluate for each
//	status             output: every PolicyStatus
type dataCase struct {
	command  string
	input    []string
	expected []string
	// outputAt is the index, in the file's lines, of the "----" line.
	outputAt int
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
	c := New()
	var rewritten []string
	next := 0
	for _, dc := range cases {
		got := runDataCase(t, c, dc)
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

func runDataCase(t *testing.T, c *Compiler, dc dataCase) []string {
	fields := strings.Fields(dc.command)
	switch fields[0] {
	case "apply", "delete":
		objs := decodeObjects(t, strings.Join(dc.input, "\n"))
		apply := c.Upsert
		if fields[0] == "delete" {
			apply = c.Delete
		}
		if err := apply(objs...); err != nil {
			return []string{"error: " + err.Error()}
		}
		return []string{strings.TrimSpace("changed: " + strings.Join(c.Changed(), " "))}
	case "rules":
		return renderRules(c, fields[1])
	case "verdict":
		return renderVerdicts(t, c, fields[1], dc.input)
	case "status":
		return renderStatuses(c)
	}
	t.Fatalf("unknown command %q", dc.command)
	return nil
}

func renderRules(c *Compiler, endpoint string) []string {
	rules, ok := c.Rules(endpoint)
	if !ok {
		return []string{"no such endpoint"}
	}
	out := []string{"node=" + rules.ExternalNode}
	for _, r := range rules.Rules {
		out = append(out, formatRule(&r))
	}
	return out
}

// formatRule renders a rule on one line: direction, action, tier(tier
// priority), policy priority, rule index, policy, rule name, peers, ports.
func formatRule(r *CompiledRule) string {
	peers := "any"
	if !r.AnyPeer {
		peers = formatPrefixes(r.Peers)
		peers = strings.ReplaceAll(peers, " ", ",")
	}
	ports := "any"
	if len(r.Ports) > 0 {
		ports = strings.TrimSuffix(portsKey(r.Ports), ",")
	}
	return fmt.Sprintf("%s %s %s(%d) prio=%g rule=%d %s %s peers=%s ports=%s",
		strings.ToLower(string(r.Direction)), r.Action, r.Tier, r.Priority.Tier, r.Priority.Policy,
		r.Priority.RuleIndex, r.Policy, r.RuleName, peers, ports)
}

func renderStatuses(c *Compiler) []string {
	var out []string
	for _, st := range c.PolicyStatuses() {
		out = append(out, fmt.Sprintf("%s realized=%v endpoints=%d", st.Policy, st.Realized, st.Endpoints))
		for _, issue := range st.Issues {
			out = append(out, "  "+issue.String())
		}
	}
	if len(out) == 0 {
		return []string{"no policies"}
	}
	return out
}
