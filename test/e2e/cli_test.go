package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"antreaplus.io/antreaplus/pkg/toolchain"
	"antreaplus.io/antreaplus/test/framework"
)

// cli is the antreaplus binary built for the test, run against one sandbox directory.
type cli struct {
	t     *testing.T
	bin   string
	dir   string
	tools toolchain.Toolchain
}

// TestMain removes the programs the tests built (framework.Binary).
func TestMain(m *testing.M) { framework.MainWithoutClusters(m) }

func newCLI(t *testing.T) *cli {
	t.Helper()
	tools := toolchain.Toolchain{Dir: toolchain.DefaultDir()}
	if missing := tools.Missing(toolchain.SandboxTools()...); len(missing) > 0 {
		if os.Getenv(framework.RequireEnv) == "1" {
			t.Fatalf("tools %v missing from %s: run 'make tools'", missing, tools.Dir)
		}
		t.Skipf("tools %v missing from %s: run 'make tools'", missing, tools.Dir)
	}
	// The programs 'sandbox up --supervisors' runs are found next to antreaplus.
	var bin string
	for _, name := range []string{"antreaplus", "federation-manager", "member-controller", "coredns",
		"cloud-emulator", "cloud-controller", "policy-controller", "vm-agent"} {
		p, err := framework.Binary(name)
		if err != nil {
			t.Fatal(err)
		}
		if name == "antreaplus" {
			bin = p
		}
	}
	// The sandbox's directory is named after this test process, so that
	// the next run's reaper stops it should this process die (the package's
	// timeout) before its clean-ups run.
	dir, err := framework.NewSandboxDir()
	if err != nil {
		t.Fatal(err)
	}
	c := &cli{t: t, bin: bin, dir: dir, tools: tools}
	// Whatever happens in the test, stop the clusters.
	t.Cleanup(func() {
		if _, err := c.run("sandbox", "down"); err == nil {
			_ = os.RemoveAll(dir)
		}
	})
	return c
}

// in returns the CLI reporting to a subtest.
func (c *cli) in(t *testing.T) *cli {
	t.Helper()
	cc := *c
	cc.t = t
	return &cc
}

// run runs antreaplus (with --dir set for sandbox commands) and returns its combined output.
func (c *cli) run(args ...string) (string, error) {
	if args[0] == "sandbox" {
		args = append(args, "--dir", c.dir)
	}
	cmd := exec.Command(c.bin, args...)
	cmd.Env = append(os.Environ(), toolchain.DirEnv+"="+c.tools.Dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func (c *cli) mustRun(args ...string) string {
	c.t.Helper()
	start := time.Now()
	out, err := c.run(args...)
	if err != nil {
		c.t.Fatalf("antreaplus %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	c.t.Logf("antreaplus %s (%s)", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	return out
}

// kubectl runs the cached kubectl against the sandbox's kubeconfig.
func (c *cli) kubectl(args ...string) string {
	c.t.Helper()
	kubeconfig := filepath.Join(c.dir, "kubeconfig")
	cmd := exec.Command(c.tools.Path("kubectl"), append([]string{"--kubeconfig", kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
