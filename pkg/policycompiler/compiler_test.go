package policycompiler

import (
	"slices"
	"strings"
	"testing"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

func mustUpsert(t *testing.T, c *Compiler, objs ...any) {
	t.Helper()
	if err := c.Upsert(objs...); err != nil {
		t.Fatal(err)
	}
}

func TestPolicyErrorsStopRealisation(t *testing.T) {
	allow := antreav1beta1.RuleActionAllow
	tests := []struct {
		name       string
		policy     any
		ref        policyrules.PolicyRef
		wantReason string
		wantText   string
	}{
		{
			name:       "unknown tier",
			policy:     newACNP("p", 1, inTier("nope"), appliedToEEs("app", "web"), ingress(newRule(antreav1beta1.RuleActionDrop))),
			ref:        acnpRef("p"),
			wantReason: ReasonTierNotFound, wantText: `tier "nope" does not exist`,
		},
		{
			name:       "except outside cidr",
			policy:     newANNP("ns", "p", 1, appliedToEEs("app", "web"), ingress(newRule(antreav1beta1.RuleActionDrop, fromCIDR("10.0.0.0/24", "10.0.1.0/24")))),
			ref:        annpRef("ns", "p"),
			wantReason: ReasonInvalidIPBlock, wantText: "ipBlock except 10.0.1.0/24 is not inside cidr 10.0.0.0/24",
		},
		{
			name:       "pass in baseline",
			policy:     newACNP("p", 1, inTier(policyrules.TierBaseline), appliedToEEs("app", "web"), ingress(newRule(antreav1beta1.RuleActionPass, ruleName("skip")))),
			ref:        acnpRef("p"),
			wantReason: ReasonInvalidRule, wantText: "the Pass action cannot be used in the baseline tier",
		},
		{
			name:       "duplicate rule names",
			policy:     newACNP("p", 1, appliedToEEs("app", "web"), ingress(newRule(allow, ruleName("r")), newRule(allow, ruleName("r")))),
			ref:        acnpRef("p"),
			wantReason: ReasonInvalidRule, wantText: `rule name "r" is used twice`,
		},
		{
			name:       "appliedTo in spec and rule",
			policy:     newACNP("p", 1, appliedToEEs("app", "web"), ingress(antreav1beta1.Rule{Action: &allow, AppliedTo: []antreav1beta1.AppliedTo{{ExternalEntitySelector: matchLabels("app", "web")}}})),
			ref:        acnpRef("p"),
			wantReason: ReasonInvalidAppliedTo, wantText: "not in both",
		},
		{
			name:       "no appliedTo at all",
			policy:     newACNP("p", 1, ingress(newRule(allow))),
			ref:        acnpRef("p"),
			wantReason: ReasonInvalidAppliedTo, wantText: "in every rule",
		},
		{
			name:       "rule without action",
			policy:     newACNP("p", 1, appliedToEEs("app", "web"), ingress(antreav1beta1.Rule{Name: "r"})),
			ref:        acnpRef("p"),
			wantReason: ReasonInvalidRule, wantText: `rule "r" has no action`,
		},
		{
			name: "bad selector",
			policy: newACNP("p", 1, appliedToEEs("app", "web"), ingress(newRule(allow, func(r *antreav1beta1.Rule) {
				r.From = []antreav1beta1.NetworkPolicyPeer{{ExternalEntitySelector: matchLabels("bad key!", "x")}}
			}))),
			ref:        acnpRef("p"),
			wantReason: ReasonInvalidSelector, wantText: "bad key!",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			mustUpsert(t, c, newEE("ns", "web", "10.0.0.1", eeLabels("app", "web")), tt.policy)
			st, ok := c.PolicyStatus(tt.ref)
			if !ok {
				t.Fatalf("no status for %s", tt.ref)
			}
			if st.Realized || st.Endpoints != 0 {
				t.Errorf("realized = %v with %d endpoints, want not realised", st.Realized, st.Endpoints)
			}
			found := slices.ContainsFunc(st.Issues, func(i Issue) bool {
				return i.Severity == SeverityError && i.Reason == tt.wantReason && strings.Contains(i.Message, tt.wantText)
			})
			if !found {
				t.Errorf("issues = %v, want an Error %s containing %q", st.Issues, tt.wantReason, tt.wantText)
			}
			if rules, _ := c.Rules("ns/web"); len(rules.Rules) != 0 {
				t.Errorf("an unrealised policy yields rules: %v", rules.Rules)
			}
		})
	}
}

func TestChangedReportsOnlyWhatChanged(t *testing.T) {
	c := New()
	mustUpsert(t, c,
		newEE("ns", "web1", "10.0.0.1", eeLabels("app", "web")),
		newEE("ns", "web2", "10.0.0.2", eeLabels("app", "web")),
		newEE("ns", "db", "10.0.0.3", eeLabels("app", "db")),
		newEE("other", "web", "10.1.0.1", eeLabels("app", "web")),
		newANNP("ns", "db", 1, appliedToEEs("app", "db"), ingress(newRule(antreav1beta1.RuleActionAllow, fromEEs("app", "web"), tcpPort(5432)))),
	)
	if got, want := c.Changed(), []string{"ns/db", "ns/web1", "ns/web2", "other/web"}; !slices.Equal(got, want) {
		t.Fatalf("first Changed() = %v, want %v", got, want)
	}
	steps := []struct {
		name   string
		change func()
		want   []string
	}{
		{name: "nothing changed", change: func() {}, want: []string{}},
		{name: "same object again", change: func() { mustUpsert(t, c, newEE("ns", "web1", "10.0.0.1", eeLabels("app", "web"))) }, want: []string{}},
		{
			name:   "a peer leaves: only the endpoint enforcing the rule changes, and the peer's own (empty) rules do not",
			change: func() { mustUpsert(t, c, newEE("ns", "web2", "10.0.0.2", eeLabels("app", "batch"))) },
			want:   []string{"ns/db"},
		},
		{
			name:   "a peer's label changes to an unselected value: nothing",
			change: func() { mustUpsert(t, c, newEE("ns", "web2", "10.0.0.2", eeLabels("app", "cron"))) },
			want:   []string{},
		},
		{
			name:   "a peer's IP changes",
			change: func() { mustUpsert(t, c, newEE("ns", "web1", "10.0.0.9", eeLabels("app", "web"))) },
			want:   []string{"ns/db"},
		},
		{
			name: "a change and its undo between two calls: nothing to report",
			change: func() {
				mustUpsert(t, c, newEE("ns", "web1", "10.0.0.8", eeLabels("app", "web")))
				c.flush()
				mustUpsert(t, c, newEE("ns", "web1", "10.0.0.9", eeLabels("app", "web")))
			},
			want: []string{},
		},
		{
			name: "a policy of another Namespace does not touch ns",
			change: func() {
				mustUpsert(t, c, newANNP("other", "p", 1, appliedToEEs("app", "web"), ingress(newRule(antreav1beta1.RuleActionDrop))))
			},
			want: []string{"other/web"},
		},
		{name: "delete the enforcement point", change: func() { _ = c.Delete(newEE("ns", "db", "")) }, want: []string{"ns/db"}},
	}
	for _, step := range steps {
		step.change()
		if got := c.Changed(); !slices.Equal(got, step.want) {
			t.Errorf("%s: Changed() = %v, want %v", step.name, got, step.want)
		}
	}
}

func TestHashAndGeneration(t *testing.T) {
	c := New()
	mustUpsert(t, c,
		newEE("ns", "db", "10.0.0.3", eeLabels("app", "db")),
		newANNP("ns", "db", 1, appliedToEEs("app", "db"), ingress(newRule(antreav1beta1.RuleActionDrop, fromCIDR("10.0.0.0/8")))),
	)
	first, _ := c.Rules("ns/db")
	mustUpsert(t, c, newANNP("ns", "db", 1, appliedToEEs("app", "db"), ingress(newRule(antreav1beta1.RuleActionDrop, fromCIDR("10.0.0.0/16")))))
	second, _ := c.Rules("ns/db")
	if second.Hash == first.Hash || second.Generation <= first.Generation {
		t.Errorf("after a change: hash %s -> %s, generation %d -> %d; want a new hash and a higher generation", first.Hash, second.Hash, first.Generation, second.Generation)
	}
	mustUpsert(t, c, newANNP("ns", "db", 1, appliedToEEs("app", "db"), ingress(newRule(antreav1beta1.RuleActionDrop, fromCIDR("10.0.0.0/8")))))
	third, _ := c.Rules("ns/db")
	if third.Hash != first.Hash || third.Generation <= second.Generation {
		t.Errorf("after undoing it: hash %s (first %s), generation %d (second %d); want the first hash and a higher generation", third.Hash, first.Hash, third.Generation, second.Generation)
	}
	again, _ := c.Rules("ns/db")
	if again.Generation != third.Generation {
		t.Errorf("generation moved without a change: %d -> %d", third.Generation, again.Generation)
	}
}

func TestEndpointsOnNode(t *testing.T) {
	c := New()
	mustUpsert(t, c,
		newEE("ns", "nic0", "10.0.0.1", eeNode("vm-1")),
		newEE("ns", "nic1", "10.0.0.2", eeNode("vm-1")),
		newEE("ns", "other", "10.0.0.3", eeNode("vm-2")),
	)
	if got, want := c.EndpointsOnNode("vm-1"), []string{"ns/nic0", "ns/nic1"}; !slices.Equal(got, want) {
		t.Errorf("EndpointsOnNode(vm-1) = %v, want %v", got, want)
	}
	mustUpsert(t, c, newEE("ns", "nic1", "10.0.0.2", eeNode("vm-2")))
	if got, want := c.EndpointsOnNode("vm-2"), []string{"ns/nic1", "ns/other"}; !slices.Equal(got, want) {
		t.Errorf("after a move, EndpointsOnNode(vm-2) = %v, want %v", got, want)
	}
	if got := c.EndpointsOnNode("vm-1"); !slices.Equal(got, []string{"ns/nic0"}) {
		t.Errorf("after a move, EndpointsOnNode(vm-1) = %v", got)
	}
	if got, want := c.Endpoints(), []string{"ns/nic0", "ns/nic1", "ns/other"}; !slices.Equal(got, want) {
		t.Errorf("Endpoints() = %v, want %v", got, want)
	}
}

func TestUpsertRejectsUnknownTypes(t *testing.T) {
	c := New()
	err := c.Upsert(newEE("ns", "a", "10.0.0.1"), "not an object", 42)
	if err == nil || !strings.Contains(err.Error(), "cannot upsert a string") || !strings.Contains(err.Error(), "cannot upsert a int") {
		t.Errorf("error = %v, want one per unknown object", err)
	}
	if _, ok := c.Rules("ns/a"); !ok {
		t.Error("the known object was not upserted")
	}
	if err := c.Delete(struct{}{}); err == nil {
		t.Error("Delete of an unknown type returned no error")
	}
}

func TestRulesAreCopies(t *testing.T) {
	c := New()
	mustUpsert(t, c,
		newEE("ns", "a", "10.0.0.1", eeLabels("app", "a")),
		newEE("ns", "b", "10.0.0.2", eeLabels("app", "a")),
		newACNP("p", 1, appliedToEEs("app", "a"), ingress(newRule(antreav1beta1.RuleActionDrop, ruleName("r"), fromCIDR("10.0.0.0/8")))),
	)
	a, _ := c.Rules("ns/a")
	a.Rules[0].Action = policyrules.ActionAllow
	b, _ := c.Rules("ns/b")
	again, _ := c.Rules("ns/a")
	if b.Rules[0].Action != policyrules.ActionDrop || again.Rules[0].Action != policyrules.ActionDrop {
		t.Error("changing a returned rule changed the compiler's rules")
	}
}
