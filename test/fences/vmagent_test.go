package fences

import (
	"slices"
	"strings"
	"testing"
)

// vmAgentRefused are the packages the VM agent must not link, each with
// its prefix: what it receives is the wire format, whose vocabulary is
// pkg/policyrules, so the compiler, the CRD types and the Kubernetes API
// machinery would only add weight and attack surface to every VM.
var vmAgentRefused = []struct{ prefix, why string }{
	{module + "/pkg/policycompiler", "the policy compiler (the agent needs only pkg/policyrules)"},
	{module + "/api", "the project's API types"},
	{"k8s.io/api", "the Kubernetes API types"},
	{"k8s.io/apimachinery", "the Kubernetes API machinery"},
	{"k8s.io/client-go", "the Kubernetes client"},
	{"sigs.k8s.io/controller-runtime", "controller-runtime"},
}

// TestVMAgentLinksNoCompilerNorAPITypes checks what cmd/vm-agent links:
// neither the policy compiler nor any API type (docs/development.md,
// "Layout and fences").
func TestVMAgentLinksNoCompilerNorAPITypes(t *testing.T) {
	const agent = module + "/cmd/vm-agent"
	linked, ok := depsOf(t, "./cmd/vm-agent")[agent]
	if !ok {
		t.Fatalf("go list did not list %s", agent)
	}
	// The agent's own library must be there, or this test checks nothing.
	if !slices.Contains(linked, module+"/pkg/vmagent") {
		t.Fatalf("%s does not link %s/pkg/vmagent: update this test to where the agent lives", agent, module)
	}
	for _, r := range vmAgentRefused {
		if bad := forbidden(linked, func(p string) bool { return within(p, r.prefix) }); len(bad) > 0 {
			t.Errorf("%s links %s: %s; the agent depends on the wire format and pkg/policyrules only "+
				"(`go list -deps -f '{{.ImportPath}}: {{.Imports}}' ./cmd/vm-agent | grep %s` shows who imports it)",
				agent, r.why, strings.Join(bad, ", "), r.prefix)
		}
	}
}
