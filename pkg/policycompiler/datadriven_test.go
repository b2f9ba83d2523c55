package policycompiler

import (
	"fmt"
	"strings"
	"testing"

	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/test/datadriven"
)

// TestDataDriven runs the cases of testdata/*.txt (package datadriven);
// -rewrite regenerates their expected outputs:
//
//	go test ./pkg/policycompiler/ -run TestDataDriven -rewrite
//
// Commands, each on a Compiler fed by the cases before it in the file:
//
//	apply              upsert the YAML objects of the input; output: Changed()
//	delete             delete the YAML objects of the input; output: Changed()
//	rules EP           output: the rules of endpoint EP
//	verdict EP         input: "ingress|egress IP PROTOCOL [PORT|TYPE/CODE]" lines;
//	                   output: the Decision of Evaluate for each
//	status             output: every PolicyStatus
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, file string) {
		t.Helper()
		c := New()
		datadriven.RunTest(t, file, func(t *testing.T, d *datadriven.TestData) []string {
			t.Helper()
			return runDataCase(t, c, d)
		})
	})
}

func runDataCase(t *testing.T, c *Compiler, d *datadriven.TestData) []string {
	t.Helper()
	switch d.Cmd {
	case "apply", "delete":
		objs := decodeObjects(t, strings.Join(d.Input, "\n"))
		apply := c.Upsert
		if d.Cmd == "delete" {
			apply = c.Delete
		}
		if err := apply(objs...); err != nil {
			return []string{"error: " + err.Error()}
		}
		return []string{strings.TrimSpace("changed: " + strings.Join(c.Changed(), " "))}
	case "rules":
		return renderRules(c, d.CmdArgs[0])
	case "verdict":
		return renderVerdicts(t, c, d.CmdArgs[0], d.Input)
	case "status":
		return renderStatuses(c)
	}
	t.Fatalf("unknown command %q", d.Command)
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
func formatRule(r *policyrules.CompiledRule) string {
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
