package policystatus

import (
	"fmt"
	"strings"

	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// State says whether an enforcement point enforces a policy.
type State string

const (
	// StateRealized: the point enforces the policy's newest rules.
	StateRealized State = "Realized"
	// StatePending: the point has not reported enforcing them yet.
	StatePending State = "Pending"
	// StateFailed: the point cannot enforce them, or not as written.
	StateFailed State = "Failed"
)

// Reasons of points that are not realised.
const (
	ReasonAgentNotConnected     = "AgentNotConnected"
	ReasonAgentBehind           = "AgentBehind"
	ReasonApplyFailed           = "ApplyFailed"
	ReasonAgentlessNotReported  = "AgentlessNotReported"
	ReasonAgentlessBehind       = "AgentlessBehind"
	ReasonAgentlessApproximated = "Approximated"
)

// Point is the state of one enforcement point for one policy.
type Point struct {
	// Endpoint is the ExternalEntity's "namespace/name".
	Endpoint string
	// Enforcer is who enforces it: "agent <namespace>/<vm>" or "agentless".
	Enforcer string
	State    State
	Reason   string
	Message  string
}

func (p Point) String() string {
	s := fmt.Sprintf("%s (%s): %s", p.Endpoint, p.Enforcer, p.Reason)
	if p.Message != "" {
		s += ": " + p.Message
	}
	return s
}

// Target is what a point must enforce: the server's epoch and the
// generation at which the endpoint's rules last changed.
type Target struct {
	Epoch      string
	Generation uint64
}

// AgentPoint is the state of a point enforced by the VM agent of vm.
func AgentPoint(endpoint, vm string, agent policydistribution.AgentStatus, known bool, t Target) Point {
	p := Point{Endpoint: endpoint, Enforcer: "agent " + vm}
	rep := agent.Report
	switch {
	case !known || rep == nil:
		p.State, p.Reason, p.Message = StatePending, ReasonAgentNotConnected, "the VM agent has not reported since the policy controller started"
	case rep.ApplyError != "":
		p.State, p.Reason, p.Message = StateFailed, ReasonApplyFailed, rep.ApplyError
	case rep.AppliedEpoch != t.Epoch || rep.AppliedGeneration < t.Generation:
		p.State, p.Reason = StatePending, ReasonAgentBehind
		p.Message = fmt.Sprintf("the VM agent enforces generation %d; the rules changed at generation %d", rep.AppliedGeneration, t.Generation)
	default:
		p.State, p.Reason = StateRealized, "Realized"
	}
	return p
}

// AgentlessPoint is the state of a point enforced by the cloud
// controller's security groups, for policy.
func AgentlessPoint(endpoint string, policy wire.PolicyRef, st policydistribution.AgentlessStatus, known bool, t Target) Point {
	p := Point{Endpoint: endpoint, Enforcer: "agentless"}
	rep := &st.Report
	switch {
	case !known:
		p.State, p.Reason, p.Message = StatePending, ReasonAgentlessNotReported, "the cloud controller has not reported since the policy controller started"
		return p
	case rep.AppliedEpoch != t.Epoch || rep.AppliedGeneration < t.Generation:
		p.State, p.Reason = StatePending, ReasonAgentlessBehind
		p.Message = fmt.Sprintf("the security groups enforce generation %d; the rules changed at generation %d", rep.AppliedGeneration, t.Generation)
		return p
	}
	p.State, p.Reason = StateRealized, "Realized"
	var unrealized, approximated []string
	for _, f := range findingsOf(rep, endpoint) {
		if f.Policy != (wire.PolicyRef{}) && f.Policy != policy {
			continue
		}
		line := f.Reason + ": " + f.Message
		if f.Rule != "" {
			line = "rule " + f.Rule + ": " + line
		}
		if len(unrealized) == 0 && f.Severity != wire.SeverityApproximated {
			// The point's reason says it already.
			line = strings.Replace(line, f.Reason+": ", "", 1)
		}
		if f.Severity == wire.SeverityApproximated {
			approximated = append(approximated, line)
			continue
		}
		if len(unrealized) == 0 {
			p.Reason = f.Reason
		}
		unrealized = append(unrealized, line)
	}
	switch {
	case len(unrealized) > 0:
		p.State, p.Message = StateFailed, strings.Join(unrealized, "; ")
	case len(approximated) > 0:
		p.Reason, p.Message = ReasonAgentlessApproximated, strings.Join(approximated, "; ")
	}
	return p
}

// findingsOf returns the findings of one endpoint of a report (sorted by
// name).
func findingsOf(rep *wire.AgentlessReport, endpoint string) []wire.Finding {
	lo, hi := 0, len(rep.Endpoints)
	for lo < hi {
		mid := (lo + hi) / 2
		if rep.Endpoints[mid].Name < endpoint {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(rep.Endpoints) && rep.Endpoints[lo].Name == endpoint {
		return rep.Endpoints[lo].Findings
	}
	return nil
}
