package translate

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// enforcementNetworks are the networks of the points a policy applies to,
// sorted: the cluster network when it applies to Pods, and the networks
// of the Namespace's ExternalEntities ("" for those without the network
// label) when it applies to ExternalEntities. A policy applied to
// ExternalEntities of a Namespace that has none yet is translated for an
// entity in no known network, the most careful view.
func enforcementNetworks(p *policyv1alpha1.FederatedNetworkPolicy, in *Inputs) []string {
	pods, entities := appliesTo(&p.Spec)
	var out []string
	if pods || !entities {
		out = append(out, in.clusterNetwork())
	}
	if entities {
		nets := in.EntityNetworks[p.Namespace]
		if len(nets) == 0 {
			nets = []string{""}
		}
		out = append(out, nets...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// appliedToGroup reports whether a policy applies to a Group, whose
// members' networks a rule appliedTo cannot tell apart.
func appliedToGroup(spec *antreav1beta1.NetworkPolicySpec) bool {
	has := func(list []antreav1beta1.AppliedTo) bool {
		return slices.ContainsFunc(list, func(a antreav1beta1.AppliedTo) bool { return a.Group != "" })
	}
	if has(spec.AppliedTo) {
		return true
	}
	for _, rules := range [][]antreav1beta1.Rule{spec.Ingress, spec.Egress} {
		for _, r := range rules {
			if has(r.AppliedTo) {
				return true
			}
		}
	}
	return false
}

// sameDerived reports whether two translations derived the same objects.
func sameDerived(a, b Result) bool {
	if (a.Policy == nil) != (b.Policy == nil) || len(a.Groups) != len(b.Groups) {
		return false
	}
	if a.Policy != nil && !equality.Semantic.DeepEqual(a.Policy.Spec, b.Policy.Spec) {
		return false
	}
	for i := range a.Groups {
		if a.Groups[i].Name != b.Groups[i].Name || !equality.Semantic.DeepEqual(a.Groups[i].Spec, b.Groups[i].Spec) {
			return false
		}
	}
	return true
}

// split derives one policy whose rules are copied for each network's
// points from results (one per network of points, in order), each copy
// restricted to them by a rule appliedTo and naming the Groups of what
// they see, renamed "-n<k>" after the network's index.
func split(p *policyv1alpha1.FederatedNetworkPolicy, in *Inputs, points []string, results []Result) Result {
	spec := antreav1beta1.NetworkPolicySpec{Tier: p.Spec.Tier, Priority: p.Spec.Priority}
	var groups []*antreav1beta1.Group
	for k, network := range points {
		r := results[k]
		if r.Report.Problem != nil {
			return r
		}
		if r.Policy == nil {
			continue
		}
		suffix := fmt.Sprintf("-n%d", k)
		renamed := map[string]string{}
		for _, g := range r.Groups {
			cp := g.DeepCopy()
			cp.Name = shorten(g.Name + suffix)
			renamed[g.Name] = cp.Name
			groups = append(groups, cp)
		}
		pods := network == in.clusterNetwork()
		restrictRules := func(rules []antreav1beta1.Rule, from bool) []antreav1beta1.Rule {
			var out []antreav1beta1.Rule
			for _, rule := range rules {
				list := rule.AppliedTo
				if len(list) == 0 {
					list = r.Policy.Spec.AppliedTo
				}
				rule = *rule.DeepCopy()
				rule.AppliedTo = restrict(list, network, pods)
				if len(rule.AppliedTo) == 0 {
					continue
				}
				rule.Name += suffix
				peers := rule.To
				if from {
					peers = rule.From
				}
				for i := range peers {
					if n, ok := renamed[peers[i].Group]; ok {
						peers[i].Group = n
					}
				}
				out = append(out, rule)
			}
			return out
		}
		spec.Ingress = append(spec.Ingress, restrictRules(r.Policy.Spec.Ingress, true)...)
		spec.Egress = append(spec.Egress, restrictRules(r.Policy.Spec.Egress, false)...)
	}
	report := mergeReports(results)
	report.Notes = append(report.Notes, fmt.Sprintf("applied in %d networks whose points see the remote peers differently (%v): each rule is copied per network, "+
		"restricted to its points by a rule appliedTo", len(points), describePoints(points)))
	if len(spec.Ingress) > maxRules || len(spec.Egress) > maxRules {
		report.Problem = &Problem{Reason: ReasonTooLarge, Message: fmt.Sprintf("the policy is applied in %d networks; its rules copied for each exceed %d in a direction", len(points), maxRules)}
		return Result{Report: report}
	}
	if len(spec.Ingress)+len(spec.Egress) == 0 {
		return Result{Report: report}
	}
	slices.SortFunc(groups, func(a, b *antreav1beta1.Group) int { return strings.Compare(a.Name, b.Name) })
	return Result{Policy: &antreav1beta1.NetworkPolicy{ObjectMeta: derivedMeta(p, PolicyName(p.Name)), Spec: spec}, Groups: groups, Report: report}
}

func describePoints(points []string) []string {
	out := make([]string, len(points))
	for i, n := range points {
		out[i] = n
		if n == "" {
			out[i] = "entities in no known network"
		}
	}
	return out
}

// restrict keeps of an appliedTo list what is in network: its Pod entries
// for the cluster network, its ExternalEntity entries with the network's
// label required (absent for "") otherwise.
func restrict(list []antreav1beta1.AppliedTo, network string, pods bool) []antreav1beta1.AppliedTo {
	var out []antreav1beta1.AppliedTo
	for _, a := range list {
		if a.ExternalEntitySelector == nil {
			if pods && a.Group == "" {
				out = append(out, *a.DeepCopy())
			}
			continue
		}
		if pods && network != "" {
			continue
		}
		cp := *a.DeepCopy()
		req := metav1.LabelSelectorRequirement{Key: federationv1alpha1.LabelNetwork, Operator: metav1.LabelSelectorOpIn, Values: []string{network}}
		if network == "" {
			req = metav1.LabelSelectorRequirement{Key: federationv1alpha1.LabelNetwork, Operator: metav1.LabelSelectorOpDoesNotExist}
		}
		cp.ExternalEntitySelector.MatchExpressions = append(cp.ExternalEntitySelector.MatchExpressions, req)
		out = append(out, cp)
	}
	return out
}

// mergeReports merges the reports of one policy translated for several
// networks: a source is resolved when it is anywhere, and says why it is
// not usable at each point where it is not.
func mergeReports(results []Result) Report {
	rep := results[0].Report
	rep.RemoteSources = slices.Clone(rep.RemoteSources)
	for _, r := range results[1:] {
		for i := range rep.RemoteSources {
			if i >= len(r.Report.RemoteSources) {
				break
			}
			mergeSource(&rep.RemoteSources[i], &r.Report.RemoteSources[i])
		}
		rep.Notes = appendNew(rep.Notes, r.Report.Notes...)
	}
	return rep
}

func mergeSource(into, from *policyv1alpha1.RemoteSourceStatus) {
	if from.Resolved && !into.Resolved {
		into.Message = from.Message
	}
	into.Resolved = into.Resolved || from.Resolved
	into.Addresses = max(into.Addresses, from.Addresses)
	into.Clusters = appendNew(into.Clusters, from.Clusters...)
	slices.Sort(into.Clusters)
	into.Unusable = capLines(appendNew(into.Unusable, from.Unusable...))
	into.SharedEgress = capLines(appendNew(into.SharedEgress, from.SharedEgress...))
}

func appendNew(list []string, more ...string) []string {
	for _, m := range more {
		if !slices.Contains(list, m) {
			list = append(list, m)
		}
	}
	return list
}

// AppliedToEntities returns whether a policy applies to an ExternalEntity
// of its Namespace with the given labels: an appliedTo (of the policy or
// of a rule) selects it, or names a Group (whose members are not known
// here: every entity counts). The member controller collects the networks
// of these entities for Inputs.EntityNetworks.
func AppliedToEntities(p *policyv1alpha1.FederatedNetworkPolicy) func(map[string]string) bool {
	var sels []labels.Selector
	group := false
	collect := func(list []antreav1beta1.AppliedTo) {
		for _, a := range list {
			group = group || a.Group != ""
			if a.ExternalEntitySelector == nil {
				continue
			}
			if s, err := metav1.LabelSelectorAsSelector(a.ExternalEntitySelector); err == nil {
				sels = append(sels, s)
			}
		}
	}
	collect(p.Spec.AppliedTo)
	for _, rules := range [][]antreav1beta1.Rule{p.Spec.Ingress, p.Spec.Egress} {
		for _, r := range rules {
			collect(r.AppliedTo)
		}
	}
	return func(l map[string]string) bool {
		if group {
			return true
		}
		return slices.ContainsFunc(sels, func(s labels.Selector) bool { return s.Matches(labels.Set(l)) })
	}
}
