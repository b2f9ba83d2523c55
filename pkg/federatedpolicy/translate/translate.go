package translate

import (
	"fmt"
	"net/netip"
	"sort"

	"k8s.io/apimachinery/pkg/labels"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/networks"
)

// Directions, as rules are named in the status ("ingress[0]").
const (
	ingress = "ingress"
	egress  = "egress"
)

// translator holds one translation's state: the derived objects for the
// enforcement points of one network.
type translator struct {
	policy       *policyv1alpha1.FederatedNetworkPolicy
	in           *Inputs
	memberLabels labels.Set
	report       Report
	groups       map[string][]netip.Addr
	// view is what the enforcement points translated for see.
	view *networks.View
	// multi is true when the policy has points in several networks: lines
	// of the report then say which network they are about.
	multi bool
}

func newTranslator(p *policyv1alpha1.FederatedNetworkPolicy, in *Inputs, network string, multi bool) *translator {
	return &translator{policy: p, in: in, memberLabels: in.Member.FederationLabels(), groups: map[string][]netip.Addr{},
		view: in.Networks.View(network), multi: multi}
}

// Translate derives the Antrea NetworkPolicy and Groups of a federated
// policy from in. It does no I/O; the same inputs give the same result.
//
// A policy whose enforcement points are in one network (or whose remote
// peers resolve alike in all of them) derives one policy as the federated
// one is written; otherwise each network's points get their own copy of
// every rule, restricted to them by a rule appliedTo, with the addresses
// they see (see the package documentation).
func Translate(p *policyv1alpha1.FederatedNetworkPolicy, in *Inputs) Result {
	points := enforcementNetworks(p, in)
	multi := len(points) > 1
	if multi && appliedToGroup(&p.Spec) {
		res := newTranslator(p, in, "", false).run()
		res.Report.Notes = append(res.Report.Notes, "the policy is applied to a Group, whose members' networks are not known: "+
			"remote peers contribute only public and egress addresses; select the entities with externalEntitySelector instead")
		return res
	}
	first := newTranslator(p, in, points[0], multi).run()
	if !multi || first.Report.Problem != nil {
		return first
	}
	results := []Result{first}
	same := true
	for _, n := range points[1:] {
		r := newTranslator(p, in, n, multi).run()
		same = same && sameDerived(first, r)
		results = append(results, r)
	}
	if same {
		first.Report = mergeReports(results)
		return first
	}
	return split(p, in, points, results)
}

// run translates the policy for the translator's points.
func (t *translator) run() Result {
	p := t.policy
	t.report.AppliesToPods, t.report.AppliesToExternalEntities = appliesTo(&p.Spec)
	if prob := checkRuleNames(&p.Spec); prob != nil {
		return t.failed(prob)
	}
	spec := antreav1beta1.NetworkPolicySpec{Tier: p.Spec.Tier, Priority: p.Spec.Priority}
	for _, a := range p.Spec.AppliedTo {
		spec.AppliedTo = append(spec.AppliedTo, *a.DeepCopy())
	}
	for i := range p.Spec.Ingress {
		spec.Ingress = append(spec.Ingress, t.rule(ingress, i, &p.Spec.Ingress[i])...)
	}
	for i := range p.Spec.Egress {
		spec.Egress = append(spec.Egress, t.rule(egress, i, &p.Spec.Egress[i])...)
	}
	if t.report.Problem == nil {
		t.checkRules(&spec)
	}
	if t.report.Problem != nil {
		return t.failed(t.report.Problem)
	}
	uniqueRuleNames(&spec)
	if len(spec.AppliedTo) == 0 && len(spec.Ingress)+len(spec.Egress) == 0 {
		return Result{Report: t.report}
	}
	return Result{
		Policy: &antreav1beta1.NetworkPolicy{ObjectMeta: derivedMeta(p, PolicyName(p.Name)), Spec: spec},
		Groups: t.buildGroups(),
		Report: t.report,
	}
}

// failed is the result of a translation that found prob: no object, and
// only what the report says of the policy as a whole.
func (t *translator) failed(prob *Problem) Result {
	return Result{Report: Report{Problem: prob, AppliesToPods: t.report.AppliesToPods,
		AppliesToExternalEntities: t.report.AppliesToExternalEntities}}
}

func (t *translator) fail(prob *Problem) {
	if t.report.Problem == nil {
		t.report.Problem = prob
	}
}

func (t *translator) note(format string, args ...any) {
	t.report.Notes = append(t.report.Notes, fmt.Sprintf(format, args...))
}

// addGroup records the content of a derived Group and returns its name.
func (t *translator) addGroup(name string, addrs []netip.Addr) string {
	t.groups[name] = addrs
	return name
}

func (t *translator) buildGroups() []*antreav1beta1.Group {
	out := make([]*antreav1beta1.Group, 0, len(t.groups))
	for name, addrs := range t.groups {
		out = append(out, &antreav1beta1.Group{ObjectMeta: derivedMeta(t.policy, name), Spec: antreav1beta1.GroupSpec{IPBlocks: ipBlocks(addrs)}})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// ruleID names rule i of dir in the status: "ingress[0]", with the rule's
// name when it has one ("egress[1]/to-db").
func ruleID(dir string, i int, name string) string {
	id := fmt.Sprintf("%s[%d]", dir, i)
	if name != "" {
		id += "/" + name
	}
	return id
}

// appliesTo tells whether a policy applies to Pods and to ExternalEntities.
func appliesTo(spec *antreav1beta1.NetworkPolicySpec) (pods, entities bool) {
	check := func(list []antreav1beta1.AppliedTo) {
		for _, a := range list {
			pods = pods || a.PodSelector != nil || a.ServiceAccount != nil
			entities = entities || a.ExternalEntitySelector != nil || a.Group != ""
		}
	}
	check(spec.AppliedTo)
	for _, r := range spec.Ingress {
		check(r.AppliedTo)
	}
	for _, r := range spec.Egress {
		check(r.AppliedTo)
	}
	return pods, entities
}
