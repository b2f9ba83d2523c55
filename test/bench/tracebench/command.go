package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"time"

	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/test/bench/benchtable"
)

// commandTraces times `antreaplus trace -o json` as an operator runs it,
// process start included, for n flows between random VMs (half within
// member-2, half from member-1 to member-2), against members whose policy
// controllers answer Traces: by default the command reads only what the
// flow's ends need and asks the members to decide their points; each flow
// is then traced again with --local (every member read whole, the policies
// compiled in the command), after all of them, the baseline. Both must agree on
// the verdict and the deciding rule, and the default must have been
// decided by the controllers.
func commandTraces(ctx context.Context, sb *sandbox.Sandbox, perMember, n int, withLocal bool) (asked, local []float64, stages commandStages, err error) {
	bin, err := sb.FindBinary(ctx, "antreaplus")
	if err != nil {
		return nil, nil, stages, err
	}
	rng := rand.New(rand.NewPCG(5, uint64(perMember)))
	flows := make([][]string, n)
	for run := range n {
		from := 2
		if run%2 == 1 {
			from = 1
		}
		i, k := rng.IntN(perMember), rng.IntN(perMember)
		if run%4 < 2 {
			i = i - i%tiers + k%tiers
			if i >= perMember {
				i -= tiers
			}
		}
		flows[run] = []string{"trace", "--kubeconfig", sb.KubeconfigPath(), "-o", "json", "--timeout", "60s",
			"--from", fmt.Sprintf("member-%d:vm/%s", from, vmName(from, i)), "--to", "member-2:vm/" + vmName(2, k),
			"--port", fmt.Sprint(8000 + k%ports)}
	}
	// All the asked runs first, then the --local ones: a --local run pulls
	// every member's lists through the API servers, whose aftermath (their
	// garbage collection) would land on the next asked run.
	run := func(args []string) (commandResult, float64, error) {
		start := time.Now()
		cmd := exec.CommandContext(ctx, bin, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return commandResult{}, 0, fmt.Errorf("antreaplus %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
		}
		took := ms(time.Since(start))
		var got commandResult
		if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || len(got.Trace.Steps) == 0 {
			return got, 0, fmt.Errorf("antreaplus %s: not a trace (%s): %s", strings.Join(args, " "), fmt.Sprint(err), stdout.String())
		}
		return got, took, nil
	}
	answers := make([]commandResult, n)
	for j, args := range flows {
		got, took, err := run(args)
		if err != nil {
			return nil, nil, stages, err
		}
		answers[j], asked = got, append(asked, took)
		read, decide := duration(got.Took.Read), duration(got.Took.Decide)
		stages.read = append(stages.read, read)
		stages.connect = append(stages.connect, duration(got.Took.Connect))
		stages.decide = append(stages.decide, decide)
		stages.rest = append(stages.rest, took-read-decide)
		if got.Took.By != "members" {
			return nil, nil, stages, fmt.Errorf("antreaplus %s: decided %s, want by the members", strings.Join(args, " "), got.Took.By)
		}
	}
	slowest := 0
	for j := range asked {
		if asked[j] > asked[slowest] {
			slowest = j
		}
	}
	logf("the slowest asked run took %.0f ms: reading %.0f (connecting %.0f), deciding %.0f, the rest %.0f (%s)", asked[slowest],
		stages.read[slowest], stages.connect[slowest], stages.decide[slowest], stages.rest[slowest], strings.Join(flows[slowest][7:], " "))
	if !withLocal {
		return asked, nil, stages, nil
	}
	for j, args := range flows {
		got, took, err := run(append(slices.Clone(args), "--local"))
		if err != nil {
			return nil, nil, stages, err
		}
		local = append(local, took)
		a, l := answers[j].last(), got.last()
		if answers[j].Trace.Verdict != got.Trace.Verdict || a.rule() != l.rule() {
			return nil, nil, stages, fmt.Errorf("%v: the members decided %s by %s, the command computes %s by %s", args,
				answers[j].Trace.Verdict, a.rule(), got.Trace.Verdict, l.rule())
		}
		if !strings.Contains(a.Note, "decided by the policy controller of member-2") {
			return nil, nil, stages, fmt.Errorf("%v: the destination's point was not decided by member-2's policy controller: %q", args, a.Note)
		}
	}
	logf("%d commands over %d VMs per member: median %.0f ms asking the members, %.0f ms with --local", n, perMember,
		benchtable.Summarize("", "", asked).Median, benchtable.Summarize("", "", local).Median)
	return asked, local, stages, nil
}

// commandStages are the asked runs' stages as the command reports them
// (took), in ms: reading the members, deciding (the Trace objects), and
// the rest of the process's time (start, kubeconfig, printing).
type commandStages struct {
	read, connect, decide, rest []float64
}

// duration reads a Go duration as ms; 0 when it is not one.
func duration(s string) float64 {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0
	}
	return ms(d)
}

// commandResult is what the benchmark reads of trace -o json.
type commandResult struct {
	Trace struct {
		Verdict string        `json:"verdict"`
		Steps   []commandStep `json:"steps"`
	} `json:"trace"`
	Took struct {
		Read    string `json:"read"`
		Connect string `json:"connect"`
		Decide  string `json:"decide"`
		By      string `json:"by"`
	} `json:"took"`
}

type commandStep struct {
	Rule *struct {
		Policy string `json:"policy"`
		Index  int32  `json:"index"`
		Action string `json:"action"`
	} `json:"rule"`
	Note string `json:"note"`
}

func (r commandResult) last() commandStep { return r.Trace.Steps[len(r.Trace.Steps)-1] }

func (s commandStep) rule() string {
	if s.Rule == nil {
		return "no rule"
	}
	return fmt.Sprintf("%s rule %d: %s", s.Rule.Policy, s.Rule.Index, s.Rule.Action)
}
