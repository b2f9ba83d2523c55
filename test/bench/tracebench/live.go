package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/toolchain"
	"antreaplus.io/antreaplus/test/bench/benchtable"
)

// The live trace's federation is the demo's: `antreaplus sandbox up` with
// two supervisors, the local clouds and VM agents in network namespaces.
// member-1 exports its dev VMs; member-2's federated policy lets only
// dev-build-1 reach azure-dev-build-2 on 8080, so dev-build-3's flow is
// dropped by the destination's agent and dev-build-1's allowed.
var liveFlows = []struct{ from, verdict string }{{"dev-build-1", "allowed"}, {"dev-build-3", "dropped"}}

// benchLive times `antreaplus trace --live` (programs from $PATH: make
// bench builds them into bin/) for an allowed and a dropped flow, each
// against the computed trace of the same flow in the same run.
func benchLive(ctx context.Context, runs int, liveTimeout int) ([]benchtable.Figure, error) {
	dir, err := os.MkdirTemp("", "tracebench-live-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	base, err := sandbox.FreeBase(2)
	if err != nil {
		return nil, err
	}
	cli := func(ctx context.Context, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "antreaplus", args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(dir, "kubeconfig"), "ANTREAPLUS_SANDBOX_DIR="+dir)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			return out.String(), fmt.Errorf("antreaplus %s: %w\n%s%s", strings.Join(args, " "), err, out.String(), errOut.String())
		}
		return out.String(), nil
	}
	defer func() { _, _ = cli(context.Background(), "sandbox", "down") }()
	started := time.Now()
	logf("starting the demo's federation (2 members, clouds, VM agents) ...")
	if _, err := cli(ctx, "sandbox", "up", "--clusters", "2", "--supervisors", "2", "--cloud", "--vm-agents", "--nodes", "1",
		"--api-port-base", strconv.Itoa(base)); err != nil {
		return nil, err
	}
	logf("up in %s", time.Since(started).Round(time.Second))
	kubectl := filepath.Join(toolchain.DefaultDir(), "kubectl")
	for _, a := range []struct{ member, file string }{{"member-1", "dev-vms-export.yaml"}, {"member-2", "build-2-from-aws.yaml"}} {
		cmd := exec.CommandContext(ctx, kubectl, "--kubeconfig", filepath.Join(dir, "kubeconfig"), "--context", a.member,
			"apply", "-f", filepath.Join("test", "e2e", "testdata", "demo", a.file))
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("kubectl apply %s in %s: %w\n%s", a.file, a.member, err, out)
		}
	}
	args := func(from string) []string {
		return []string{"trace", "--from", "member-1:vm/" + from, "--to", "member-2:vm/dev-build-2", "--port", "8080", "-o", "json", "--timeout", "60s"}
	}
	// The policy reaches the agent: both computed verdicts as expected.
	deadline := time.Now().Add(3 * time.Minute)
	for _, f := range liveFlows {
		for {
			out, err := cli(ctx, args(f.from)...)
			if err == nil && verdictOf(out) == f.verdict {
				break
			}
			if time.Now().After(deadline) {
				if err == nil {
					err = fmt.Errorf("the verdict is %q", verdictOf(out))
				}
				return nil, fmt.Errorf("the trace from %s is not %s within 3 min: %w\n%s", f.from, f.verdict, err, out)
			}
			time.Sleep(2 * time.Second)
		}
	}
	var figures []benchtable.Figure
	for _, f := range liveFlows {
		var live, computed []float64
		for range runs {
			start := time.Now()
			if _, err := cli(ctx, args(f.from)...); err != nil {
				return nil, err
			}
			computed = append(computed, ms(time.Since(start)))
			start = time.Now()
			out, err := cli(ctx, append(args(f.from), "--live", "--live-timeout", strconv.Itoa(liveTimeout))...)
			if err != nil {
				return nil, err
			}
			live = append(live, ms(time.Since(start)))
			if err := agreed(out, f.verdict); err != nil {
				return nil, fmt.Errorf("live trace from %s: %w\n%s", f.from, err, out)
			}
		}
		figures = append(figures,
			benchtable.Summarize(fmt.Sprintf("live trace, %s flow: command to verdict", f.verdict), "ms", live),
			benchtable.Summarize("  baseline: the computed trace of the same flow", "ms", computed),
			benchtable.Summarize("  ratio", "x", benchtable.Ratios(live, computed)))
	}
	return figures, nil
}

// traceJSON is what the bench reads of `antreaplus trace -o json`.
type traceJSON struct {
	Trace struct {
		Verdict string `json:"verdict"`
	} `json:"trace"`
	Live []struct {
		Member string `json:"member"`
		Point  struct {
			Direction string `json:"direction"`
			Observed  *struct {
				Verdict string `json:"verdict"`
			} `json:"observed"`
			Agrees *bool `json:"agrees"`
		} `json:"point"`
	} `json:"live"`
}

func verdictOf(out string) string {
	var t traceJSON
	if json.Unmarshal([]byte(out), &t) != nil {
		return ""
	}
	return t.Trace.Verdict
}

// agreed checks that the computed verdict is want and that both points
// were observed agreeing with it.
func agreed(out, want string) error {
	var t traceJSON
	if err := json.Unmarshal([]byte(out), &t); err != nil {
		return err
	}
	if t.Trace.Verdict != want {
		return fmt.Errorf("computed %q, want %q", t.Trace.Verdict, want)
	}
	if len(t.Live) < 2 {
		return fmt.Errorf("%d points observed, want the source's egress and the destination's ingress", len(t.Live))
	}
	for _, l := range t.Live {
		if l.Point.Observed == nil || l.Point.Agrees == nil || !*l.Point.Agrees {
			return fmt.Errorf("%s's %s point was not observed agreeing", l.Member, l.Point.Direction)
		}
	}
	return nil
}
