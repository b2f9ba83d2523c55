package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
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
// compiled in the command), interleaved, the baseline. Both must agree on
// the verdict and the deciding rule, and the default must have been
// decided by the controllers.
func commandTraces(ctx context.Context, sb *sandbox.Sandbox, perMember, n int) (asked, local []float64, err error) {
	bin, err := sb.FindBinary(ctx, "antreaplus")
	if err != nil {
		return nil, nil, err
	}
	rng := rand.New(rand.NewPCG(5, uint64(perMember)))
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
		args := []string{"trace", "--kubeconfig", sb.KubeconfigPath(), "-o", "json", "--timeout", "60s",
			"--from", fmt.Sprintf("member-%d:vm/%s", from, vmName(from, i)), "--to", "member-2:vm/" + vmName(2, k),
			"--port", fmt.Sprint(8000 + k%ports)}
		var got [2]commandResult
		for j, extra := range [][]string{nil, {"--local"}} {
			start := time.Now()
			cmd := exec.CommandContext(ctx, bin, append(args, extra...)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				return nil, nil, fmt.Errorf("antreaplus %s: %w\n%s", strings.Join(append(args, extra...), " "), err, stderr.String())
			}
			took := ms(time.Since(start))
			if err := json.Unmarshal(stdout.Bytes(), &got[j]); err != nil || len(got[j].Trace.Steps) == 0 {
				return nil, nil, fmt.Errorf("antreaplus %s: not a trace (%s): %s", strings.Join(args, " "), fmt.Sprint(err), stdout.String())
			}
			if j == 0 {
				asked = append(asked, took)
			} else {
				local = append(local, took)
			}
		}
		a, l := got[0].last(), got[1].last()
		if got[0].Trace.Verdict != got[1].Trace.Verdict || a.rule() != l.rule() {
			return nil, nil, fmt.Errorf("%v: the members decided %s by %s, the command computes %s by %s", args,
				got[0].Trace.Verdict, a.rule(), got[1].Trace.Verdict, l.rule())
		}
		if !strings.Contains(a.Note, "decided by the policy controller of member-2") {
			return nil, nil, fmt.Errorf("%v: the destination's point was not decided by member-2's policy controller: %q", args, a.Note)
		}
	}
	logf("%d commands over %d VMs per member: median %.0f ms asking the members, %.0f ms with --local", n, perMember,
		benchtable.Summarize("", "", asked).Median, benchtable.Summarize("", "", local).Median)
	return asked, local, nil
}

// commandResult is what the benchmark reads of trace -o json.
type commandResult struct {
	Trace struct {
		Verdict string        `json:"verdict"`
		Steps   []commandStep `json:"steps"`
	} `json:"trace"`
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
