package main

import (
	"bytes"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/test/framework"
)

// TestDemoFast runs make demo's program in its fast form: a sandbox of
// three federated clusters without a cloud, and every section that needs
// none, each checking what it shows. A demo section that no longer does
// what it says fails here.
func TestDemoFast(t *testing.T) {
	var bin string
	for _, p := range []string{"antreaplus", "federation-manager", "member-controller", "coredns"} {
		path, err := framework.Binary(p)
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Dir(path)
	}
	dir, err := framework.NewSandboxDir()
	if err != nil {
		t.Fatal(err)
	}
	base, err := sandbox.FreeBase(3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		out, err := exec.Command(filepath.Join(bin, "antreaplus"), "sandbox", "down", "--dir", dir).CombinedOutput()
		if err != nil {
			t.Errorf("sandbox down: %v\n%s", err, out)
		}
	})
	var out bytes.Buffer
	o := options{bin: bin, dir: dir, apiPortBase: base, fast: true, clusters: 3, supervisors: 2}
	err = run(t.Context(), o, io.MultiWriter(&out, testWriter{t}))
	if err != nil {
		t.Fatalf("the demo failed: %v", err)
	}
	for _, want := range []string{
		"== The API server refuses bad objects with a clear message",
		"member-3 exports nothing, yet its DNS server resolves the federated Service",
		"Every member member-", // the failover's line
		"(skipped: the fast form runs no cloud, tenants or ExternalDNS)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the demo's output lacks %q", want)
		}
	}
}

// testWriter logs the demo's output as it comes.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
