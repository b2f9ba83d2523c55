// Command installbench measures `antreaplus install` of a supervisor (the
// chart rendered for its roles and server-side applied) against the
// same-run baseline of the real Helm installing the same chart with the same
// values (`helm install`), on one sandbox cluster, each followed by its
// uninstall. It prints a table and writes JSON.
//
//	make build && PATH=$PWD/bin:$PATH go run ./test/bench/installbench -runs 5 -json _output/bench/install.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/toolchain"
	"antreaplus.io/antreaplus/test/bench/benchtable"
)

func main() {
	runs := flag.Int("runs", 5, "installs of each kind")
	base := flag.Int("api-port-base", 14443, "API server port of the cluster")
	out := flag.String("json", "", "write the figures as JSON to this file")
	flag.Parse()
	if err := run(*runs, *base, *out); err != nil {
		fmt.Fprintln(os.Stderr, "installbench:", err)
		os.Exit(1)
	}
}

func run(runs, base int, out string) error {
	tools := toolchain.Toolchain{Dir: toolchain.DefaultDir()}
	if missing := tools.Missing(append(toolchain.SandboxTools(), "helm", "kubectl")...); len(missing) > 0 {
		return fmt.Errorf("tools %v missing: run 'make tools'", missing)
	}
	antreaplus, err := exec.LookPath("antreaplus")
	if err != nil {
		return fmt.Errorf("antreaplus is not on PATH: run 'make build' and put bin/ on PATH: %w", err)
	}
	repo, err := toolchain.FindRepo()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "installbench-")
	if err != nil {
		return err
	}
	sb := sandbox.New(sandbox.Options{Dir: dir, APIPortBase: base, Tools: &tools})
	defer func() { _ = sb.Down(context.Background()) }()
	if _, err := sb.Up(context.Background(), 1); err != nil {
		return err
	}
	kubeconfig := sb.KubeconfigPath()
	chart := filepath.Join(repo, "deploy", "charts", "antreaplus")
	sh := func(name string, args ...string) (time.Duration, error) {
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "HELM_CACHE_HOME="+filepath.Join(dir, "helm"), "HELM_CONFIG_HOME="+filepath.Join(dir, "helm"))
		start := time.Now()
		msg, err := cmd.CombinedOutput()
		if err != nil {
			return 0, fmt.Errorf("%s %v: %w\n%s", name, args, err, msg)
		}
		return time.Since(start), nil
	}
	// The namespace is deleted after each run, as neither uninstall keeps
	// it the same way (Helm leaves it): every install starts from none.
	dropNamespace := func() error {
		_, err := sh(tools.Path("kubectl"), "--context", "member-1", "delete", "namespace", federationv1alpha1.SystemNamespace, "--ignore-not-found", "--wait")
		return err
	}
	var ours, helm []float64
	for r := 0; r < runs; r++ {
		d, err := sh(tools.Path("helm"), "install", "antreaplus", chart, "--kube-context", "member-1",
			"--namespace", federationv1alpha1.SystemNamespace, "--create-namespace", "--set", "supervisor.enabled=true")
		if err != nil {
			return err
		}
		helm = append(helm, d.Seconds())
		if _, err := sh(tools.Path("helm"), "uninstall", "antreaplus", "--kube-context", "member-1", "--namespace", federationv1alpha1.SystemNamespace, "--wait"); err != nil {
			return err
		}
		if err := dropNamespace(); err != nil {
			return err
		}
		d, err = sh(antreaplus, "install", "--context", "member-1", "--role", "supervisor")
		if err != nil {
			return err
		}
		ours = append(ours, d.Seconds())
		if _, err := sh(antreaplus, "uninstall", "--context", "member-1"); err != nil {
			return err
		}
		if err := dropNamespace(); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "run %d/%d: helm install %.2fs, antreaplus install %.2fs\n", r+1, runs, helm[r], ours[r])
	}
	figures := []benchtable.Figure{
		benchtable.Summarize("helm install of the chart, a supervisor (baseline)", "s", helm),
		benchtable.Summarize("antreaplus install --role supervisor", "s", ours),
		benchtable.Summarize("ratio antreaplus / helm", "x", benchtable.Ratios(ours, helm)),
	}
	benchtable.Print(os.Stdout, "install figure (one sandbox cluster, its CRDs present)", figures)
	return benchtable.WriteJSON(out, "install", map[string]any{"runs": runs}, figures)
}
