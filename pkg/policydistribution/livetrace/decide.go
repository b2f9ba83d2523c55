package livetrace

import (
	"fmt"
	"net/netip"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// Point is one enforcement point of this member on the flow's way.
type Point struct {
	// Endpoint is the ExternalEntity, "namespace/name".
	Endpoint  string
	Direction policyrules.Direction
	// Enforcer is the point's externalNode.
	Enforcer string
	// Rules are the compiled rules served to the enforcer, in order; nil
	// when the controller serves none for the point.
	Rules []policyrules.CompiledRule
	// Served is false when the hub holds no rules for the point.
	Served bool
	// Peer is the other end's address as this point sees it.
	Peer netip.Addr
}

// Computed is a point's computed verdict and the key of its deciding rule
// (nil: no rule decided).
type Computed struct {
	Verdict policyv1alpha1.TraceVerdict
	Rule    *wire.RuleKey
}

// Compute decides the point for the flow by the reference semantics every
// enforcer implements (policyrules.Evaluate).
func Compute(p Point, protocol policyrules.Protocol, port int32) Computed {
	if !p.Served {
		return Computed{Verdict: policyv1alpha1.TraceVerdict{Verdict: string(wire.ObservedAllowed),
			Note: "no rule: no policy applies to this point (default allow)"}}
	}
	d := policyrules.Evaluate(p.Rules, policyrules.Packet{Direction: p.Direction, Peer: p.Peer, Protocol: protocol, Port: port})
	out := Computed{Verdict: policyv1alpha1.TraceVerdict{Verdict: verdictOf(d.Action)}}
	if d.Rule == nil {
		out.Verdict.Note = "no rule: default allow (Antrea-native policies do not isolate)"
		if d.Passed {
			out.Verdict.Note = "passed to the baseline tier, where no rule decides: default allow"
		}
		return out
	}
	r := d.Rule
	key := wire.RuleKey{Policy: wire.PolicyRef{Kind: string(r.Policy.Kind), Namespace: r.Policy.Namespace, Name: r.Policy.Name},
		Direction: r.Direction, Index: r.Priority.RuleIndex, Name: r.RuleName, Action: r.Action}
	out.Rule = &key
	out.Verdict.Rule = RuleText(key)
	out.Verdict.DecidedBy = &policyv1alpha1.TraceRule{Policy: r.Policy.String(), Tier: r.Tier, Direction: string(r.Direction),
		Index: r.Priority.RuleIndex, Name: r.RuleName, Action: string(r.Action)}
	out.Verdict.Note = "tier " + r.Tier
	return out
}

func verdictOf(a policyrules.Action) string {
	switch a {
	case policyrules.ActionDrop:
		return string(wire.ObservedDropped)
	case policyrules.ActionReject:
		return string(wire.ObservedRejected)
	}
	return string(wire.ObservedAllowed)
}

// RuleText names a rule as a Trace's status does: "Kind:namespace/name
// Direction rule index (name): Action".
func RuleText(k wire.RuleKey) string {
	ref := policyrules.PolicyRef{Kind: policyrules.PolicyKind(k.Policy.Kind), Namespace: k.Policy.Namespace, Name: k.Policy.Name}
	s := fmt.Sprintf("%s %s rule %d", ref, k.Direction, k.Index)
	if k.Name != "" {
		s += " (" + k.Name + ")"
	}
	return s + ": " + string(k.Action)
}

// Observe turns an agent's observation into the point's observed verdict
// and says whether it agrees with the computed one: the same verdict by
// the same rule (or both by no rule). A packet not seen never agrees.
func Observe(c Computed, obs wire.Observation) (policyv1alpha1.TraceVerdict, bool) {
	v := policyv1alpha1.TraceVerdict{Verdict: string(obs.Verdict), Note: obs.Note}
	if obs.Rule != nil {
		v.Rule = RuleText(*obs.Rule)
	}
	if obs.Verdict == wire.ObservedNotSeen {
		return v, false
	}
	agrees := v.Verdict == c.Verdict.Verdict && v.Rule == c.Verdict.Rule
	if !agrees {
		v.Note = joinNote(v.Note, fmt.Sprintf("differs from the computed %s by %s: a rule not realised yet, or an agent out of date",
			c.Verdict.Verdict, orNoRule(c.Verdict.Rule)))
	}
	return v, agrees
}

func orNoRule(rule string) string {
	if rule == "" {
		return "no rule"
	}
	return rule
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// FlowVerdict is the flow's verdict in this member: that of the first
// point (in path order) that stops it, observed where observed, else
// Allowed.
func FlowVerdict(points []policyv1alpha1.TracePoint) string {
	for _, p := range points {
		v := p.Computed.Verdict
		if p.Observed != nil && p.Observed.Verdict != string(wire.ObservedNotSeen) {
			v = p.Observed.Verdict
		}
		if v == string(wire.ObservedDropped) || v == string(wire.ObservedRejected) {
			return v
		}
	}
	return string(wire.ObservedAllowed)
}

// Findings returns, of what the agentless enforcer reported of a point's
// endpoint, the findings that concern the point's rules: those of their
// policies, and those of no policy (every policy of the endpoint), in the
// order reported.
func Findings(reported []wire.Finding, rules []policyrules.CompiledRule) []policyv1alpha1.TraceFinding {
	policies := map[string]bool{}
	for _, r := range rules {
		policies[r.Policy.String()] = true
	}
	var out []policyv1alpha1.TraceFinding
	for _, f := range reported {
		tf := policyv1alpha1.TraceFinding{Severity: f.Severity, Reason: f.Reason, Rule: f.Rule, Message: f.Message}
		if f.Policy != (wire.PolicyRef{}) {
			tf.Policy = policyrules.PolicyRef{Kind: policyrules.PolicyKind(f.Policy.Kind), Namespace: f.Policy.Namespace, Name: f.Policy.Name}.String()
			if !policies[tf.Policy] {
				continue
			}
		}
		out = append(out, tf)
	}
	return out
}
