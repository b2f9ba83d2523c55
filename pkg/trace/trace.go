package trace

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"antreaplus.io/antreaplus/pkg/policyrules"
)

// Address kinds, as docs/networks.md classifies them.
const (
	AddressPrivate = "Private"
	AddressPublic  = "Public"
	AddressEgress  = "Egress"
)

// Address is one address of a workload.
type Address struct {
	IP netip.Addr
	// Kind is AddressPrivate, AddressPublic or AddressEgress; empty when
	// unknown (an address given as such, a member that does not classify).
	Kind string
	// Via names what an egress address belongs to (a NAT gateway).
	Via string
}

// Workload is the source or the destination of a trace.
type Workload struct {
	// Member is the member whose API server it was read from.
	Member string
	// Name says what it is, for people: "VM dev-build-1 (ExternalEntity
	// cloud-demo/nic-...)".
	Name string
	// Network is the network it is in ("" when unknown).
	Network string
	// Addresses, private first.
	Addresses []Address
	// Point is where its own policies are enforced; nil when nothing of
	// this federation enforces any (an address outside, a remote entity
	// seen from another member).
	Point *Point
	// Elsewhere, when set and Point is nil, says who enforces its policies
	// where this trace does not compute them (a Pod: Antrea in its
	// member).
	Elsewhere string
	// Pod names the workload when it is a Pod (Antrea's Traceflow traces
	// it by name).
	Pod *PodEnd
	// Delegated, when set and Point is nil, is its leg's decision as the
	// enforcer Elsewhere made it (Antrea's Traceflow in its member), or
	// why that enforcer was not asked or did not answer (Undecided).
	Delegated *Decision
}

// Point is an enforcement point: an ExternalEntity and the rules its
// enforcer must enforce, as the policy controller compiles them.
type Point struct {
	Member string
	// Endpoint is the ExternalEntity's "namespace/name".
	Endpoint string
	// Enforcer is the ExternalEntity's externalNode: the VM whose agent
	// enforces, or the cloud controller (agentless: security groups).
	Enforcer string
	// Rules in enforcement order (policyrules.EndpointRules.Rules).
	Rules []policyrules.CompiledRule
	// Pending, when set, says why the enforcer may not enforce these rules
	// yet (a policy not realised on the point).
	Pending string
	// Decided, when set, is the point's verdict as its member's policy
	// controller decided it (a Trace object): Rules are not read then.
	Decided *Decision
}

// Decision is a point's verdict decided by its member's policy controller
// from the rules it serves the point's enforcer.
type Decision struct {
	Result Verdict
	// Rule is the deciding rule; nil when none decided.
	Rule *Rule
	// Note says why no rule decided (default allow, passed to baseline).
	Note string
	// By names who decided: "the policy controller of member-2 (Trace
	// ns/name)".
	By string
	// Findings are the enforcer's findings on the point's policies
	// (FindingText of each).
	Findings []string
}

// Query is one flow to trace and what is known of the networks.
type Query struct {
	Source, Destination Workload
	Protocol            policyrules.Protocol
	Port                int32
	// Resolved is how the destination's name was resolved, when it was
	// given as a name.
	Resolved *Resolution
	// Flat reports whether the private addresses of network a reach
	// network b (the same network, or a flat connection); nil: only the
	// same network.
	Flat func(a, b string) bool
	// Federated maps an Antrea policy derived from a FederatedNetworkPolicy
	// to the federated policy's name.
	Federated map[policyrules.PolicyRef]string
}

// Resolution is a DNS answer on the way.
type Resolution struct {
	Name    string
	Answers []string
	// From says where the answers come from (the exporters of a federated
	// Service).
	From string
}

// Verdict is what happens to the flow.
type Verdict string

// Verdicts.
const (
	Allowed     Verdict = "allowed"
	Dropped     Verdict = "dropped"
	Rejected    Verdict = "rejected"
	Unreachable Verdict = "unreachable"
	// Undecided: no point on the way drops the flow, but one is not
	// computed here (a Pod's, which Antrea enforces).
	Undecided Verdict = "undecided"
)

// Step kinds.
const (
	StepDNS     = "dns"
	StepLeg     = "leg"
	StepEgress  = "egress"
	StepIngress = "ingress"
)

// Step is one hop of the path.
type Step struct {
	Kind   string  `json:"kind"`
	Member string  `json:"member,omitempty"`
	Point  string  `json:"point,omitempty"`
	Via    string  `json:"enforcer,omitempty"`
	Result Verdict `json:"verdict,omitempty"`
	Rule   *Rule   `json:"rule,omitempty"`
	Note   string  `json:"note"`
	// Findings are what the point's enforcer reported it does not enforce
	// as written of the point's policies (the agentless enforcer: a
	// security group), as its member's policy controller answered them.
	Findings []string `json:"findings,omitempty"`
}

// Rule names the rule that decided.
type Rule struct {
	Tier   string             `json:"tier"`
	Policy string             `json:"policy"`
	Action policyrules.Action `json:"action"`
	Name   string             `json:"name,omitempty"`
	// Index is the rule's place in its direction's rules; -1 when the
	// decider does not say (Antrea's Traceflow names rules, and no tier).
	Index int32                 `json:"index"`
	Dir   policyrules.Direction `json:"direction"`
	// Federated is the FederatedNetworkPolicy the policy was derived from.
	Federated string `json:"federatedPolicy,omitempty"`
}

func (r *Rule) String() string {
	name := fmt.Sprintf("%s rule %d", r.Dir, r.Index)
	if r.Index < 0 {
		name = fmt.Sprintf("%s rule", r.Dir)
	}
	if r.Name != "" {
		name += " (" + r.Name + ")"
	}
	s := fmt.Sprintf("%s, %s: %s", r.Policy, name, r.Action)
	if r.Tier != "" {
		s = "tier " + r.Tier + ", " + s
	}
	if r.Federated != "" {
		s += ", derived from FederatedNetworkPolicy " + r.Federated
	}
	return s
}

// Result is a computed trace.
type Result struct {
	Verdict Verdict `json:"verdict"`
	// Source and Destination are the packet's addresses as the
	// destination sees them; invalid when no address could be chosen.
	Source      netip.Addr `json:"source"`
	Destination netip.Addr `json:"destination"`
	Steps       []Step     `json:"steps"`
}

// Compute traces q: the name resolution, the addresses the packet
// carries, then the source's egress point and the destination's ingress
// point, each deciding by its rules (policyrules.Evaluate, the semantics
// every enforcer implements). The first point that drops or rejects ends
// the trace.
func Compute(q Query) Result {
	var res Result
	if r := q.Resolved; r != nil {
		note := fmt.Sprintf("%s resolves to %v", r.Name, r.Answers)
		if r.From != "" {
			note += " (" + r.From + ")"
		}
		res.Steps = append(res.Steps, Step{Kind: StepDNS, Member: q.Source.Member, Note: note})
	}
	flat := q.flat(q.Source.Network, q.Destination.Network)
	dst, dstWhy := pick(q.Destination.Addresses, flat, AddressPrivate, AddressPublic)
	src, srcWhy := pick(q.Source.Addresses, flat, AddressPrivate, AddressEgress, AddressPublic)
	switch {
	case !dst.IP.IsValid():
		res.Verdict = Unreachable
		res.Steps = append(res.Steps, Step{Kind: StepLeg, Result: Unreachable,
			Note: fmt.Sprintf("%s has no address %s reaches: %s", q.Destination.Name, q.Source.Name, dstWhy)})
		return res
	case !src.IP.IsValid():
		res.Verdict = Unreachable
		res.Steps = append(res.Steps, Step{Kind: StepLeg, Result: Unreachable,
			Note: fmt.Sprintf("%s has no address its traffic to %s carries: %s", q.Source.Name, q.Destination.Name, srcWhy)})
		return res
	}
	res.Source, res.Destination = src.IP, dst.IP
	res.Steps = append(res.Steps, Step{Kind: StepLeg, Note: q.leg(src, dst, flat)})
	legs := []struct {
		kind string
		w    *Workload
		pkt  policyrules.Packet
	}{
		{StepEgress, &q.Source, policyrules.Packet{Direction: policyrules.DirectionEgress, Peer: dst.IP, Protocol: q.Protocol, Port: q.Port}},
		{StepIngress, &q.Destination, policyrules.Packet{Direction: policyrules.DirectionIngress, Peer: src.IP, Protocol: q.Protocol, Port: q.Port}},
	}
	res.Verdict = Allowed
	for _, l := range legs {
		step := q.decide(l.kind, l.w, l.pkt)
		res.Steps = append(res.Steps, step)
		switch step.Result {
		case Allowed:
		case Undecided:
			res.Verdict = Undecided
		default:
			res.Verdict = step.Result
			return res
		}
	}
	return res
}

func (q Query) flat(a, b string) bool {
	if a != "" && a == b {
		return true
	}
	if a == "" || b == "" || q.Flat == nil {
		return false
	}
	return q.Flat(a, b)
}

// pick chooses the address of a workload the leg carries: the first of
// the kinds in order that the leg allows (a private address only over a
// flat leg); an address of unknown kind when nothing is classified.
func pick(addrs []Address, flat bool, kinds ...string) (Address, string) {
	for _, k := range kinds {
		if k == AddressPrivate && !flat {
			continue
		}
		if i := slices.IndexFunc(addrs, func(a Address) bool { return a.Kind == k && a.IP.IsValid() }); i >= 0 {
			return addrs[i], ""
		}
	}
	if i := slices.IndexFunc(addrs, func(a Address) bool { return a.Kind == "" && a.IP.IsValid() }); i >= 0 {
		return addrs[i], ""
	}
	if len(addrs) == 0 {
		return Address{}, "it has no address"
	}
	return Address{}, "its networks are not flat to each other and it has no public or egress address (give it one, or declare the networks flat: docs/networks.md)"
}

func (q Query) leg(src, dst Address, flat bool) string {
	how := "the networks are not flat: public and egress addresses"
	if flat {
		how = "private addresses (the same network, or flat)"
	}
	s := fmt.Sprintf("%s -> %s %s", describe(src), describe(dst), q.Protocol)
	if q.Port != 0 {
		s += fmt.Sprintf("/%d", q.Port)
	}
	return s + "; " + how
}

func describe(a Address) string {
	s := a.IP.String()
	switch {
	case a.Kind == AddressEgress && a.Via != "":
		s += " (egress via " + a.Via + ")"
	case a.Kind != "":
		s += " (" + a.Kind + ")"
	}
	return s
}

// decide is one point's verdict on a packet.
func (q Query) decide(kind string, w *Workload, pkt policyrules.Packet) Step {
	p := w.Point
	if p == nil && w.Delegated != nil {
		d := w.Delegated
		step := Step{Kind: kind, Member: w.Member, Result: d.Result, Rule: d.Rule, Note: w.Name + ": " + d.Note}
		if d.Rule != nil {
			step.Note = w.Name + ": " + d.Rule.String()
		}
		if d.By != "" {
			step.Note += " (decided by " + d.By + ")"
		}
		return step
	}
	if p == nil && w.Elsewhere != "" {
		return Step{Kind: kind, Member: w.Member, Result: Undecided, Note: fmt.Sprintf("%s: not computed here: %s", w.Name, w.Elsewhere)}
	}
	if p == nil {
		return Step{Kind: kind, Member: w.Member, Result: Allowed,
			Note: fmt.Sprintf("%s: no enforcement point of this federation", w.Name)}
	}
	step := Step{Kind: kind, Member: p.Member, Point: p.Endpoint, Via: p.Enforcer}
	if d := p.Decided; d != nil {
		step.Result, step.Rule, step.Note = d.Result, d.Rule, d.Note
		if d.Rule != nil {
			step.Note = d.Rule.String()
		}
		if p.Pending != "" {
			step.Note += "; " + p.Pending
		}
		if len(d.Findings) > 0 {
			step.Findings = d.Findings
			step.Note += "; the enforcer does not enforce all of it as written: " + strings.Join(d.Findings, "; ")
		}
		if d.By != "" {
			step.Note += " (decided by " + d.By + ")"
		}
		return step
	}
	d := policyrules.Evaluate(p.Rules, pkt)
	switch d.Action {
	case policyrules.ActionDrop:
		step.Result = Dropped
	case policyrules.ActionReject:
		step.Result = Rejected
	default:
		step.Result = Allowed
	}
	if d.Rule == nil {
		step.Note = "no rule: default allow (Antrea-native policies do not isolate)"
		if d.Passed {
			step.Note = "passed to the baseline tier, where no rule decides: default allow"
		}
	} else {
		r := d.Rule
		step.Rule = &Rule{Tier: r.Tier, Policy: r.Policy.String(), Action: r.Action, Name: r.RuleName, Index: r.Priority.RuleIndex,
			Dir: r.Direction, Federated: q.Federated[r.Policy]}
		step.Note = step.Rule.String()
	}
	if p.Pending != "" {
		step.Note += "; " + p.Pending
	}
	return step
}
