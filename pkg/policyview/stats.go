package policyview

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// StatsOptions say which policies Stats shows.
type StatsOptions struct {
	// Name shows only the policies of this name (a federated policy of
	// this name stands for its derived policies); empty shows every one.
	Name string
	// Namespace shows only this Namespace's policies and the cluster-wide
	// ones; empty shows every Namespace.
	Namespace string
}

// PolicyTraffic is the traffic of one policy: a federated policy's summed
// over its derived policies in every member, another's over its member.
type PolicyTraffic struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Traffic sums Rules.
	Traffic policyv1alpha1.TrafficStats `json:"traffic"`
	// Rules are summed over every enforcement point of every member.
	Rules []policyv1alpha1.RuleTrafficStats `json:"rules"`
	// Points is how many enforcement points counted; Members where.
	Points  int             `json:"points"`
	Members []MemberTraffic `json:"members"`
}

// MemberTraffic is what one member counted of a policy.
type MemberTraffic struct {
	Context   string `json:"context"`
	ClusterID string `json:"clusterID,omitempty"`
	// Policy is the counted policy in the member: for a federated policy,
	// the Antrea NetworkPolicy derived from it.
	Policy  string                      `json:"policy"`
	Traffic policyv1alpha1.TrafficStats `json:"traffic"`
	Points  []string                    `json:"points"`
}

// StatsView is the answer of `antreaplus policy stats`.
type StatsView struct {
	Members  []Member        `json:"members"`
	Policies []PolicyTraffic `json:"policies"`
}

// Stats sums the snapshots' PolicyStats by policy, a federated policy's
// over every member, sorted by kind (federated first), Namespace and name.
func Stats(snaps []Snapshot, opts StatsOptions) StatsView {
	v := StatsView{Members: []Member{}, Policies: []PolicyTraffic{}}
	byKey := map[string]*PolicyTraffic{}
	for _, s := range sortedSnapshots(snaps) {
		m := member(s)
		m.Policies = 0
		clusterID := m.ClusterID
		for i := range s.Stats {
			ps := &s.Stats[i]
			p := statsPolicy(ps)
			if (opts.Name != "" && p.Name != opts.Name) || (opts.Namespace != "" && p.Namespace != "" && p.Namespace != opts.Namespace) {
				continue
			}
			m.Policies++
			key := p.Kind + "/" + p.Namespace + "/" + p.Name
			if byKey[key] == nil {
				byKey[key] = &p
			}
			sum := byKey[key]
			mt := MemberTraffic{Context: s.Context, ClusterID: clusterID, Policy: qualified(ps.Policy.Namespace, ps.Policy.Name), Traffic: ps.Traffic}
			for _, pt := range ps.EnforcementPoints {
				mt.Points = append(mt.Points, pt.Name)
			}
			sum.Members = append(sum.Members, mt)
			sum.Points += len(mt.Points)
			sum.Rules = addRules(sum.Rules, ps.Rules)
		}
		v.Members = append(v.Members, m)
	}
	for _, p := range byKey {
		p.Traffic = policyv1alpha1.TrafficStats{}
		for _, r := range p.Rules {
			p.Traffic.Packets += r.Traffic.Packets
			p.Traffic.Bytes += r.Traffic.Bytes
			p.Traffic.DroppedPackets += r.Traffic.DroppedPackets
		}
		v.Policies = append(v.Policies, *p)
	}
	slices.SortFunc(v.Policies, func(a, b PolicyTraffic) int {
		return cmp.Or(cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind)), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return v
}

// statsPolicy is the policy a PolicyStats counts, as the view names it.
func statsPolicy(ps *policyv1alpha1.PolicyStats) PolicyTraffic {
	if ps.FederatedPolicy != "" {
		ns, name := splitQualified(ps.FederatedPolicy)
		return PolicyTraffic{Kind: KindFederated, Namespace: ns, Name: name}
	}
	kind := ps.Policy.Kind
	switch policyrules.PolicyKind(kind) {
	case policyrules.KindNetworkPolicy:
		kind = KindNetworkPolicy
	case policyrules.KindClusterNetworkPolicy:
		kind = KindClusterNetworkPolicy
	}
	return PolicyTraffic{Kind: kind, Namespace: ps.Policy.Namespace, Name: ps.Policy.Name}
}

// addRules adds more into sum, rule by rule (a rule is its direction,
// index, name and action), keeping the policy's order.
func addRules(sum, more []policyv1alpha1.RuleTrafficStats) []policyv1alpha1.RuleTrafficStats {
	for _, r := range more {
		i := slices.IndexFunc(sum, func(s policyv1alpha1.RuleTrafficStats) bool {
			return s.Direction == r.Direction && s.Index == r.Index && s.Name == r.Name && s.Action == r.Action
		})
		if i < 0 {
			sum = append(sum, policyv1alpha1.RuleTrafficStats{Direction: r.Direction, Index: r.Index, Name: r.Name, Action: r.Action})
			i = len(sum) - 1
		}
		sum[i].Traffic.Packets += r.Traffic.Packets
		sum[i].Traffic.Bytes += r.Traffic.Bytes
		sum[i].Traffic.DroppedPackets += r.Traffic.DroppedPackets
	}
	slices.SortStableFunc(sum, func(a, b policyv1alpha1.RuleTrafficStats) int {
		return cmp.Or(cmp.Compare(egressLast(a.Direction), egressLast(b.Direction)), cmp.Compare(a.Index, b.Index))
	})
	return sum
}

func egressLast(direction string) int {
	if direction == string(policyrules.DirectionIngress) {
		return 0
	}
	return 1
}

func kindOrder(kind string) int {
	if i := slices.Index(kinds, kind); i >= 0 {
		return i
	}
	return len(kinds)
}

func qualified(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

func splitQualified(s string) (string, string) {
	if ns, name, ok := strings.Cut(s, "/"); ok {
		return ns, name
	}
	return "", s
}

// RuleName shows a rule as policy statuses do: "ingress[0]", with the
// rule's name when it has one ("egress[1]/to-db").
func RuleName(r policyv1alpha1.RuleTrafficStats) string {
	dir := "egress"
	if r.Direction == string(policyrules.DirectionIngress) {
		dir = "ingress"
	}
	out := fmt.Sprintf("%s[%d]", dir, r.Index)
	if r.Name != "" {
		out += "/" + r.Name
	}
	return out
}
