package trace

import (
	"net/netip"
	"strings"
	"testing"

	"antreaplus.io/antreaplus/pkg/policyrules"
)

func addr(ip, kind string) Address { return Address{IP: netip.MustParseAddr(ip), Kind: kind} }

func prefixes(cidrs ...string) []netip.Prefix {
	var out []netip.Prefix
	for _, c := range cidrs {
		out = append(out, netip.MustParsePrefix(c))
	}
	return out
}

type ruleOpt func(*policyrules.CompiledRule)

func rule(dir policyrules.Direction, action policyrules.Action, opts ...ruleOpt) policyrules.CompiledRule {
	r := policyrules.CompiledRule{Direction: dir, Action: action, Tier: policyrules.TierApplication, AnyPeer: true,
		Policy: policyrules.PolicyRef{Kind: policyrules.KindNetworkPolicy, Namespace: "shop", Name: "db"}}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func peers(cidrs ...string) ruleOpt {
	return func(r *policyrules.CompiledRule) { r.AnyPeer, r.Peers = false, prefixes(cidrs...) }
}
func tcp(port int32) ruleOpt {
	return func(r *policyrules.CompiledRule) {
		r.Ports = append(r.Ports, policyrules.Port{Protocol: policyrules.ProtocolTCP, Port: port, EndPort: port})
	}
}
func named(n string, index int32) ruleOpt {
	return func(r *policyrules.CompiledRule) { r.RuleName, r.Priority.RuleIndex = n, index }
}
func policy(name string) ruleOpt {
	return func(r *policyrules.CompiledRule) { r.Policy.Name = name }
}
func baseline() ruleOpt {
	return func(r *policyrules.CompiledRule) { r.Tier = policyrules.TierBaseline }
}

var (
	in  = policyrules.DirectionIngress
	out = policyrules.DirectionEgress
)

func vm(member, name, network string, rules []policyrules.CompiledRule, addrs ...Address) Workload {
	return Workload{Member: member, Name: name, Network: network, Addresses: addrs,
		Point: &Point{Member: member, Endpoint: "shop/" + name, Enforcer: name, Rules: rules}}
}

func TestCompute(t *testing.T) {
	app := func(rules ...policyrules.CompiledRule) Workload {
		return vm("member-1", "app", "aws.vpc-1", rules, addr("10.0.0.5", AddressPrivate), addr("198.18.0.9", AddressEgress))
	}
	db := func(rules ...policyrules.CompiledRule) Workload {
		return vm("member-1", "db", "aws.vpc-1", rules, addr("10.0.0.9", AddressPrivate))
	}
	remote := func(rules ...policyrules.CompiledRule) Workload {
		w := vm("member-2", "azure-db", "azure.vnet-1", rules, addr("10.0.0.9", AddressPrivate), addr("203.0.113.7", AddressPublic))
		return w
	}
	cases := []struct {
		name    string
		q       Query
		verdict Verdict
		// want are substrings of the steps' notes, in order.
		want []string
	}{{
		name:    "no rule anywhere: default allow",
		q:       Query{Source: app(), Destination: db(), Protocol: policyrules.ProtocolTCP, Port: 5432},
		verdict: Allowed,
		want:    []string{"10.0.0.5 (Private) -> 10.0.0.9 (Private) TCP/5432", "no rule: default allow", "no rule: default allow"},
	}, {
		name: "allowed by the destination's rule, before its deny-all",
		q: Query{Source: app(), Destination: db(rule(in, policyrules.ActionAllow, peers("10.0.0.0/24"), tcp(5432), named("app", 0)),
			rule(in, policyrules.ActionDrop, baseline(), named("deny-all", 0), policy("isolate"))), Protocol: policyrules.ProtocolTCP, Port: 5432},
		verdict: Allowed,
		want:    []string{"", "no rule", "tier application, AntreaNetworkPolicy:shop/db, Ingress rule 0 (app): Allow"},
	}, {
		name: "dropped by the baseline deny-all on another port",
		q: Query{Source: app(), Destination: db(rule(in, policyrules.ActionAllow, peers("10.0.0.0/24"), tcp(5432), named("app", 0)),
			rule(in, policyrules.ActionDrop, baseline(), named("deny-all", 0), policy("isolate"))), Protocol: policyrules.ProtocolTCP, Port: 22},
		verdict: Dropped,
		want:    []string{"", "no rule", "tier baseline, AntreaNetworkPolicy:shop/isolate, Ingress rule 0 (deny-all): Drop"},
	}, {
		name: "dropped at the source's egress point: the destination is never reached",
		q: Query{Source: app(rule(out, policyrules.ActionReject, peers("10.0.0.9/32"), named("no-db", 3))), Destination: db(),
			Protocol: policyrules.ProtocolTCP, Port: 5432},
		verdict: Rejected,
		want:    []string{"", "Egress rule 3 (no-db): Reject"},
	}, {
		name: "a higher tier decides before the application tier",
		q: Query{Source: app(), Destination: db(
			rule(in, policyrules.ActionDrop, peers("10.0.0.5/32"), named("quarantine", 0), policy("sec"), func(r *policyrules.CompiledRule) { r.Tier = "securityops" }),
			rule(in, policyrules.ActionAllow, named("all", 0))), Protocol: policyrules.ProtocolTCP, Port: 5432},
		verdict: Dropped,
		want:    []string{"", "", "tier securityops, AntreaNetworkPolicy:shop/sec, Ingress rule 0 (quarantine): Drop"},
	}, {
		name: "a pass goes to the baseline tier",
		q: Query{Source: app(), Destination: db(rule(in, policyrules.ActionPass, named("to-baseline", 0)),
			rule(in, policyrules.ActionDrop, named("app-drop", 1)), rule(in, policyrules.ActionAllow, baseline(), named("base", 0), policy("base"))),
			Protocol: policyrules.ProtocolTCP, Port: 5432},
		verdict: Allowed,
		want:    []string{"", "", "tier baseline, AntreaNetworkPolicy:shop/base, Ingress rule 0 (base): Allow"},
	}, {
		name: "a remote VM across networks: its public address is dialled, the source's egress address seen; a rule on the private overlap does not match",
		q: Query{Source: app(rule(out, policyrules.ActionAllow, peers("203.0.113.7/32"), named("to-azure", 0))),
			Destination: remote(rule(in, policyrules.ActionDrop, peers("10.0.0.0/24"), named("no-overlap", 0)), rule(in, policyrules.ActionAllow, peers("198.18.0.9/32"), named("from-aws-nat", 1))),
			Protocol:    policyrules.ProtocolTCP, Port: 443},
		verdict: Allowed,
		want:    []string{"198.18.0.9 (Egress) -> 203.0.113.7 (Public) TCP/443; the networks are not flat", "Egress rule 0 (to-azure): Allow", "Ingress rule 1 (from-aws-nat): Allow"},
	}, {
		name: "flat networks carry private addresses",
		q: Query{Source: app(), Destination: remote(rule(in, policyrules.ActionAllow, peers("10.0.0.5/32"), named("peered", 0)), rule(in, policyrules.ActionDrop, named("rest", 1))),
			Protocol: policyrules.ProtocolTCP, Port: 443, Flat: func(a, b string) bool { return true }},
		verdict: Allowed,
		want:    []string{"10.0.0.5 (Private) -> 10.0.0.9 (Private)", "", "(peered): Allow"},
	}, {
		name: "no public address across networks: unreachable, said why",
		q: Query{Source: app(), Destination: vm("member-2", "island", "azure.vnet-1", nil, addr("10.9.0.1", AddressPrivate)),
			Protocol: policyrules.ProtocolTCP, Port: 22},
		verdict: Unreachable,
		want:    []string{"island has no address app reaches: its networks are not flat"},
	}, {
		name: "a federated Service resolved, the rule derived from a federated policy, a point not realised yet",
		q: Query{Source: app(), Destination: func() Workload {
			w := db(rule(in, policyrules.ActionDrop, peers("10.0.0.5/32"), named("", 2), policy("fnp-db-guard")))
			w.Point.Pending = "the policy is not realised on this point yet (Realizing)"
			return w
		}(), Protocol: policyrules.ProtocolTCP, Port: 5432,
			Resolved:  &Resolution{Name: "db.shop.svc.clusterset.local", Answers: []string{"10.96.0.10"}, From: "exported by member-1"},
			Federated: map[policyrules.PolicyRef]string{{Kind: policyrules.KindNetworkPolicy, Namespace: "shop", Name: "fnp-db-guard"}: "shop/db-guard"}},
		verdict: Dropped,
		want: []string{"db.shop.svc.clusterset.local resolves to [10.96.0.10] (exported by member-1)", "", "",
			"Ingress rule 2: Drop, derived from FederatedNetworkPolicy shop/db-guard; the policy is not realised"},
	}, {
		name: "a destination outside the federation: no point there",
		q: Query{Source: app(), Destination: Workload{Name: "8.8.8.8", Addresses: []Address{{IP: netip.MustParseAddr("8.8.8.8")}}},
			Protocol: policyrules.ProtocolUDP, Port: 53},
		verdict: Allowed,
		want:    []string{"198.18.0.9 (Egress) -> 8.8.8.8 UDP/53", "no rule", "8.8.8.8: no enforcement point of this federation"},
	}, {
		name: "a Pod's leg is Antrea's: not computed, the rest is",
		q: Query{Source: Workload{Member: "member-1", Name: "Pod shop/web-0", Network: "cluster.member-1", Addresses: []Address{{IP: netip.MustParseAddr("10.244.1.5")}},
			Elsewhere: "Antrea enforces the policies of Pods in member-1 (its Traceflow traces them)"},
			Destination: db(rule(in, policyrules.ActionAllow, peers("10.244.0.0/16"), named("pods", 0))), Protocol: policyrules.ProtocolTCP, Port: 5432,
			Flat: func(a, b string) bool { return true }},
		verdict: Undecided,
		want:    []string{"10.244.1.5 -> 10.0.0.9 (Private)", "Pod shop/web-0: not computed here: Antrea enforces", "(pods): Allow"},
	}, {
		name: "a drop decides even with a Pod's leg not computed",
		q: Query{Source: Workload{Member: "member-1", Name: "Pod shop/web-0", Network: "cluster.member-1", Addresses: []Address{{IP: netip.MustParseAddr("10.244.1.5")}},
			Elsewhere: "Antrea"}, Destination: db(rule(in, policyrules.ActionDrop, named("none", 0))), Protocol: policyrules.ProtocolTCP, Port: 5432,
			Flat: func(a, b string) bool { return true }},
		verdict: Dropped,
		want:    []string{"", "not computed here", "(none): Drop"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Compute(tc.q)
			if res.Verdict != tc.verdict {
				t.Errorf("verdict %s; want %s\n%+v", res.Verdict, tc.verdict, res.Steps)
			}
			if len(res.Steps) != len(tc.want) {
				t.Fatalf("%d steps; want %d: %+v", len(res.Steps), len(tc.want), res.Steps)
			}
			for i, w := range tc.want {
				if !strings.Contains(res.Steps[i].Note, w) {
					t.Errorf("step %d: %q; want it to contain %q", i, res.Steps[i].Note, w)
				}
			}
		})
	}
}
