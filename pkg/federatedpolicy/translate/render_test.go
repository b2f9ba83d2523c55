package translate

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"antreaplus.io/antreaplus/pkg/policycompiler"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// renderResult writes a translation for testdata: the derived policy's
// spec as YAML, one line per Group, then the report.
func renderResult(t *testing.T, res Result) []string {
	t.Helper()
	var out []string
	if res.Policy != nil {
		out = append(out, "policy "+res.Policy.Name)
		b, err := yaml.Marshal(res.Policy.Spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if strings.TrimSpace(l) != "enableLogging: false" {
				out = append(out, "  "+l)
			}
		}
	} else {
		out = append(out, "no policy")
	}
	for _, g := range res.Groups {
		var cidrs []string
		for _, b := range g.Spec.IPBlocks {
			cidrs = append(cidrs, b.CIDR)
		}
		if len(cidrs) == 0 {
			cidrs = []string{"(empty)"}
		}
		out = append(out, fmt.Sprintf("group %s: %s", g.Name, strings.Join(cidrs, " ")))
	}
	return append(out, renderReport(res.Report)...)
}

func renderReport(r Report) []string {
	var out []string
	for _, s := range r.RemoteSources {
		line := fmt.Sprintf("source %s %s %q: ", s.Rule, s.Kind, s.Name)
		if s.Resolved {
			line += "resolved"
		} else {
			line += "awaited"
		}
		line += fmt.Sprintf(" addresses=%d clusters=%s", s.Addresses, strings.Join(s.Clusters, ","))
		if s.Message != "" {
			line += ": " + s.Message
		}
		out = append(out, line)
		for _, u := range s.Unusable {
			out = append(out, "  unusable: "+u)
		}
		for _, e := range s.SharedEgress {
			out = append(out, "  shared egress: "+e)
		}
		for _, e := range s.NotExportedHere {
			out = append(out, "  not exported here: "+e)
		}
	}
	for _, p := range r.RefusedPeers {
		out = append(out, fmt.Sprintf("refused %s peer %d %s: %s", p.Rule, p.Peer, p.Reason, p.Message))
	}
	for _, d := range r.DroppedRules {
		out = append(out, "dropped "+d)
	}
	for _, n := range r.Notes {
		out = append(out, "note "+n)
	}
	if r.Problem != nil {
		out = append(out, fmt.Sprintf("problem %s: %s", r.Problem.Reason, r.Problem.Message))
	}
	return append(out, fmt.Sprintf("applies pods=%v entities=%v", r.AppliesToPods, r.AppliesToExternalEntities))
}

// compileFor compiles every policy's derived objects, with the world's
// Namespaces and local ExternalEntities, and writes the rules of endpoint.
func compileFor(t *testing.T, w *world, endpoint string) []string {
	t.Helper()
	c := policycompiler.New()
	objs := []any{}
	for name, lbls := range w.namespaces {
		objs = append(objs, &policycompiler.Namespace{Name: name, Labels: lbls})
	}
	for _, e := range w.local {
		objs = append(objs, e)
	}
	for _, p := range w.policies {
		res := Translate(p, w.inputs(p))
		if res.Policy != nil {
			objs = append(objs, res.Policy)
		}
		for _, g := range res.Groups {
			objs = append(objs, g)
		}
	}
	if err := c.Upsert(objs...); err != nil {
		t.Fatal(err)
	}
	rules, ok := c.Rules(endpoint)
	if !ok {
		return []string{"no such endpoint"}
	}
	out := []string{"node=" + rules.ExternalNode}
	for _, r := range rules.Rules {
		out = append(out, formatCompiled(&r))
	}
	for _, st := range c.PolicyStatuses() {
		for _, i := range st.Issues {
			out = append(out, fmt.Sprintf("issue %s: %s", st.Policy, i))
		}
	}
	return out
}

func formatCompiled(r *policyrules.CompiledRule) string {
	peers := "any"
	if !r.AnyPeer {
		var ps []string
		for _, p := range r.Peers {
			ps = append(ps, p.String())
		}
		peers = strings.Join(ps, ",")
	}
	var ports []string
	for _, p := range r.Ports {
		ports = append(ports, fmt.Sprintf("%s/%d", p.Protocol, p.Port))
	}
	sort.Strings(ports)
	if len(ports) == 0 {
		ports = []string{"any"}
	}
	return fmt.Sprintf("%s %s %s %s peers=%s ports=%s", strings.ToLower(string(r.Direction)), r.Action, r.Policy, r.RuleName, peers, strings.Join(ports, ","))
}

func splitKey(s string) types.NamespacedName {
	ns, name, _ := strings.Cut(s, "/")
	return types.NamespacedName{Namespace: ns, Name: name}
}
