package trace

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// Unrealized says why a policy's status is not Realized at its generation,
// "" when it is.
func Unrealized(gen int64, st antreav1beta1.NetworkPolicyStatus) string {
	switch {
	case st.Phase == antreav1beta1.NetworkPolicyRealized && st.ObservedGeneration == gen:
		return ""
	case st.Phase == "":
		return "no status yet"
	case st.ObservedGeneration != gen:
		return fmt.Sprintf("its status is of generation %d, not %d", st.ObservedGeneration, gen)
	}
	return fmt.Sprintf("%s (%d of %d points)", st.Phase, st.CurrentNodesRealized, st.DesiredNodesRealized)
}

// Pending says which of the policies of rules are not realised and why
// (unrealized answers for one policy, "" when it is realised); "" when all
// are.
func Pending(rules []policyrules.CompiledRule, unrealized func(policyrules.PolicyRef) string) string {
	var out []string
	seen := map[policyrules.PolicyRef]bool{}
	for _, r := range rules {
		if seen[r.Policy] {
			continue
		}
		seen[r.Policy] = true
		if why := unrealized(r.Policy); why != "" {
			out = append(out, fmt.Sprintf("%s is not realised: %s", r.Policy, why))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// DecisionOf is the decision a Trace object's point reports (its computed
// verdict), and what it says is pending. by names the Trace.
func DecisionOf(p policyv1alpha1.TracePoint, by string) (Decision, string) {
	d := Decision{By: by, Note: p.Computed.Note}
	switch p.Computed.Verdict {
	case "Dropped":
		d.Result = Dropped
	case "Rejected":
		d.Result = Rejected
	case "Allowed":
		d.Result = Allowed
	default:
		d.Result, d.Note = Undecided, fmt.Sprintf("the policy controller answered %q: %s", p.Computed.Verdict, p.Computed.Note)
	}
	if r := p.Computed.DecidedBy; r != nil {
		d.Rule = &Rule{Tier: r.Tier, Policy: r.Policy, Action: policyrules.Action(r.Action), Name: r.Name, Index: r.Index,
			Dir: policyrules.Direction(r.Direction), Federated: r.FederatedPolicy}
	}
	for _, f := range p.Findings {
		d.Findings = append(d.Findings, FindingText(f))
	}
	return d, p.Pending
}

// FindingText says a point's finding in one line: "Severity Reason
// (policy, rule): message".
func FindingText(f policyv1alpha1.TraceFinding) string {
	s := f.Severity + " " + f.Reason
	switch {
	case f.Policy != "" && f.Rule != "":
		s += " (" + f.Policy + ", " + f.Rule + ")"
	case f.Policy != "":
		s += " (" + f.Policy + ")"
	}
	if f.Message != "" {
		s += ": " + f.Message
	}
	return s
}

// LiveTrace is a Trace object to create in one member: the points of one
// Namespace there on the flow's way.
type LiveTrace struct {
	Member    string
	Namespace string
	Spec      policyv1alpha1.TraceSpec
}

// ErrNoPoint: no enforcement point of this federation is on the flow's way.
var ErrNoPoint = errors.New("no enforcement point of this federation is on the way: nothing to observe")

// ErrNoAddresses: the flow has no addresses to send between (the packet's
// step says why): there is nothing for a member to decide.
var ErrNoAddresses = errors.New("the flow has no addresses to send between")

// Traces returns the Trace objects that have the members' policy
// controllers decide the computed trace's enforcement points: one per
// member and Namespace, the one that holds the destination's point first
// (for a live trace, its agent must watch before the source's agent
// sends). res is a trace computed for its addresses and points. It errors
// when no point of this federation is on the way.
func Traces(res Result, protocol policyrules.Protocol, port int32, live bool, timeoutSeconds int32) ([]LiveTrace, error) {
	if port == 0 {
		return nil, errors.New("a Trace object traces one port: give --port")
	}
	if !res.Source.IsValid() || !res.Destination.IsValid() {
		return nil, ErrNoAddresses
	}
	var out []LiveTrace
	find := func(member, ns string) *LiveTrace {
		for i := range out {
			if out[i].Member == member && out[i].Namespace == ns {
				return &out[i]
			}
		}
		spec := policyv1alpha1.TraceSpec{Protocol: string(protocol), Port: port, Live: live,
			Source:      policyv1alpha1.TraceEnd{Address: res.Source.String()},
			Destination: policyv1alpha1.TraceEnd{Address: res.Destination.String()}}
		if live {
			spec.TimeoutSeconds = timeoutSeconds
		}
		out = append(out, LiveTrace{Member: member, Namespace: ns, Spec: spec})
		return &out[len(out)-1]
	}
	for _, s := range res.Steps {
		if (s.Kind != StepEgress && s.Kind != StepIngress) || s.Point == "" {
			continue
		}
		ns, name, ok := strings.Cut(s.Point, "/")
		if !ok {
			continue
		}
		lt := find(s.Member, ns)
		if s.Kind == StepEgress {
			lt.Spec.Source.ExternalEntity = name
		} else {
			lt.Spec.Destination.ExternalEntity = name
		}
	}
	if len(out) == 0 {
		return nil, ErrNoPoint
	}
	// Watchers first.
	for i := range out {
		if out[i].Spec.Destination.ExternalEntity != "" && i > 0 {
			out[0], out[i] = out[i], out[0]
			break
		}
	}
	return out, nil
}
