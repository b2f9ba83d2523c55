package policyview

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

func withStats(s policyv1alpha1.PolicyStats) func(*Snapshot) {
	return func(snap *Snapshot) { snap.Stats = append(snap.Stats, s) }
}

func trafficRule(dir string, index int32, action string, packets int64) policyv1alpha1.RuleTrafficStats {
	r := policyv1alpha1.RuleTrafficStats{Direction: dir, Index: index, Action: action,
		Traffic: policyv1alpha1.TrafficStats{Packets: packets, Bytes: 100 * packets}}
	if action == "Drop" {
		r.Traffic.DroppedPackets = packets
	}
	return r
}

// stats is a PolicyStats of kind/ns/name from federated (empty: none), with
// one point per rule list.
func stats(kind, ns, name, federated string, points ...[]policyv1alpha1.RuleTrafficStats) policyv1alpha1.PolicyStats {
	s := policyv1alpha1.PolicyStats{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Policy:          policyv1alpha1.PolicyStatsTarget{Kind: kind, Namespace: ns, Name: name},
		FederatedPolicy: federated}
	for i, rules := range points {
		s.EnforcementPoints = append(s.EnforcementPoints, policyv1alpha1.PointTrafficStats{Name: fmt.Sprintf("agent %s/vm%d", ns, i), Rules: rules})
		for _, r := range rules {
			s.Rules = addRules(s.Rules, []policyv1alpha1.RuleTrafficStats{r})
			s.Traffic.Packets += r.Traffic.Packets
		}
	}
	return s
}

func statsLine(p PolicyTraffic) string {
	var rules, members []string
	for _, r := range p.Rules {
		rules = append(rules, fmt.Sprintf("%s:%s:%d/%d", RuleName(r), r.Action, r.Traffic.Packets, r.Traffic.DroppedPackets))
	}
	for _, m := range p.Members {
		members = append(members, m.Context+"="+m.Policy)
	}
	return fmt.Sprintf("%s %s/%s %d/%d points=%d [%s] [%s]", p.Kind, p.Namespace, p.Name, p.Traffic.Packets, p.Traffic.DroppedPackets,
		p.Points, strings.Join(rules, " "), strings.Join(members, " "))
}

func TestStats(t *testing.T) {
	const anp, acnp = "AntreaNetworkPolicy", "AntreaClusterNetworkPolicy"
	snaps := []Snapshot{
		snap("m2", identity("acme", "eu-2"),
			withStats(stats(anp, "shop", "fnp-db", "shop/db",
				[]policyv1alpha1.RuleTrafficStats{trafficRule("Ingress", 0, "Allow", 3), trafficRule("Ingress", 1, "Drop", 2)},
				[]policyv1alpha1.RuleTrafficStats{trafficRule("Ingress", 0, "Allow", 1)})),
			withStats(stats(acnp, "", "baseline", "", []policyv1alpha1.RuleTrafficStats{trafficRule("Egress", 0, "Drop", 7)})),
			withStats(stats(anp, "dev", "web", "", []policyv1alpha1.RuleTrafficStats{trafficRule("Ingress", 0, "Allow", 5)}))),
		snap("m1", identity("acme", "us-1"),
			withStats(stats(anp, "shop", "fnp-db", "shop/db",
				[]policyv1alpha1.RuleTrafficStats{trafficRule("Egress", 0, "Allow", 1), trafficRule("Ingress", 1, "Drop", 4)}))),
		snap("m3", unreachable("no answer")),
	}
	for _, tc := range []struct {
		name string
		opts StatsOptions
		want []string
	}{{
		name: "every policy, the federated one summed over its members",
		want: []string{
			"FederatedNetworkPolicy shop/db 11/6 points=3 [ingress[0]:Allow:4/0 ingress[1]:Drop:6/6 egress[0]:Allow:1/0] [m1=shop/fnp-db m2=shop/fnp-db]",
			"NetworkPolicy dev/web 5/0 points=1 [ingress[0]:Allow:5/0] [m2=dev/web]",
			"ClusterNetworkPolicy /baseline 7/7 points=1 [egress[0]:Drop:7/7] [m2=baseline]",
		},
	}, {
		name: "by name: the federated policy's, not its derived policy's",
		opts: StatsOptions{Name: "db"},
		want: []string{"FederatedNetworkPolicy shop/db 11/6 points=3 [ingress[0]:Allow:4/0 ingress[1]:Drop:6/6 egress[0]:Allow:1/0] [m1=shop/fnp-db m2=shop/fnp-db]"},
	}, {
		name: "a Namespace keeps the cluster-wide policies",
		opts: StatsOptions{Namespace: "dev"},
		want: []string{
			"NetworkPolicy dev/web 5/0 points=1 [ingress[0]:Allow:5/0] [m2=dev/web]",
			"ClusterNetworkPolicy /baseline 7/7 points=1 [egress[0]:Drop:7/7] [m2=baseline]",
		},
	}, {
		name: "a name nobody counted",
		opts: StatsOptions{Name: "fnp-db"},
		want: nil,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			v := Stats(snaps, tc.opts)
			var got []string
			for _, p := range v.Policies {
				got = append(got, statsLine(p))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("policies:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if len(v.Members) != 3 || v.Members[2].Readable {
				t.Errorf("members %+v, want m1, m2 and m3 unreadable", v.Members)
			}
		})
	}
}
