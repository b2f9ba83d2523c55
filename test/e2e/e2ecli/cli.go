// Package e2ecli runs the antreaplus binary built for the end-to-end tests
// against one sandbox directory, for the test/e2e packages.
package e2ecli

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

// CLI is the antreaplus binary built for the test, run against one sandbox directory.
type CLI struct {
	T     *testing.T
	Bin   string
	Dir   string
	Tools toolchain.Toolchain
}

// New finds the programs a sandbox runs (framework.Binary) and returns a CLI
// of a fresh sandbox directory, whose sandbox is stopped when the test ends.
func New(t *testing.T) *CLI {
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
	c := &CLI{T: t, Bin: bin, Dir: dir, Tools: tools}
	// Whatever happens in the test, stop the clusters.
	t.Cleanup(func() {
		if _, err := c.Run("sandbox", "down"); err == nil {
			_ = os.RemoveAll(dir)
		}
	})
	return c
}

// In returns the CLI reporting to a subtest.
func (c *CLI) In(t *testing.T) *CLI {
	t.Helper()
	cc := *c
	cc.T = t
	return &cc
}

// Run runs antreaplus (with --dir set for sandbox commands) and returns its combined output.
func (c *CLI) Run(args ...string) (string, error) {
	cmd := c.command(args)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func (c *CLI) MustRun(args ...string) string {
	c.T.Helper()
	start := time.Now()
	out, err := c.Run(args...)
	if err != nil {
		c.T.Fatalf("antreaplus %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	c.T.Logf("antreaplus %s (%s)", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	return out
}

// command is antreaplus with args (and --dir for sandbox commands).
func (c *CLI) command(args []string) *exec.Cmd {
	if args[0] == "sandbox" {
		args = append(args, "--dir", c.Dir)
	}
	cmd := exec.Command(c.Bin, args...)
	cmd.Env = append(os.Environ(), toolchain.DirEnv+"="+c.Tools.Dir)
	return cmd
}

// MustOutput runs antreaplus like MustRun and returns its standard output
// alone (what -o json prints): its standard error, where client-go may
// warn, is logged.
func (c *CLI) MustOutput(args ...string) string {
	c.T.Helper()
	start := time.Now()
	cmd := c.command(args)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		c.T.Fatalf("antreaplus %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	c.T.Logf("antreaplus %s (%s)", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	if stderr.Len() > 0 {
		c.T.Logf("its standard error: %s", stderr.String())
	}
	return stdout.String()
}

// Kubectl runs the cached kubectl against the sandbox's kubeconfig.
func (c *CLI) Kubectl(args ...string) string {
	c.T.Helper()
	kubeconfig := filepath.Join(c.Dir, "kubeconfig")
	cmd := exec.Command(c.Tools.Path("kubectl"), append([]string{"--kubeconfig", kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.T.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
