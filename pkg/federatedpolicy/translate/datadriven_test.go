package translate

import (
	"strings"
	"testing"

	"antreaplus.io/antreaplus/test/datadriven"
)

// TestDataDriven runs the cases of testdata/*.txt (package datadriven);
// -rewrite regenerates their expected outputs:
//
//	go test ./pkg/federatedpolicy/translate/ -run TestDataDriven -rewrite
//
// Commands, each on a world fed by the cases before it in the file:
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
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, file string) {
		t.Helper()
		w := newWorld()
		datadriven.RunTest(t, file, func(t *testing.T, d *datadriven.TestData) []string {
			t.Helper()
			return runDataCase(t, w, d)
		})
	})
}

func runDataCase(t *testing.T, w *world, d *datadriven.TestData) []string {
	t.Helper()
	switch d.Cmd {
	case "member":
		w.member = Member{ClusterID: d.CmdArgs[0], Labels: map[string]string{}}
		for _, kv := range d.CmdArgs[1:] {
			k, v, _ := strings.Cut(kv, "=")
			w.member.Labels[k] = v
		}
		return []string{"ok"}
	case "apply", "delete":
		w.apply(t, strings.Join(d.Input, "\n"), d.Cmd == "delete")
		return []string{"ok"}
	case "translate":
		p, ok := w.policies[splitKey(d.CmdArgs[0])]
		if !ok {
			return []string{"no such policy"}
		}
		res := Translate(p, w.inputs(p))
		checkValid(t, res)
		return renderResult(t, res)
	case "compile":
		return compileFor(t, w, d.CmdArgs[0])
	}
	t.Fatalf("unknown command %q", d.Command)
	return nil
}
