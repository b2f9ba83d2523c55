package exportscope

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func TestFromSpec(t *testing.T) {
	for _, c := range []struct {
		name string
		spec *federationv1alpha1.ExportScope
		want string
		err  string
	}{
		{"no scope: every member", nil, "all", ""},
		{"a selector", &federationv1alpha1.ExportScope{ClusterSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}}}, "region=eu", ""},
		{"IDs sorted", &federationv1alpha1.ExportScope{ClusterIDs: []string{"member-3", "member-2"}}, "member-2,member-3", ""},
		{"both", &federationv1alpha1.ExportScope{ClusterSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}},
			ClusterIDs: []string{"member-7"}}, "region=eu or member-7", ""},
		{"an empty scope names nobody: closed, not everywhere", &federationv1alpha1.ExportScope{}, "none", "names no member"},
		{"an empty selector: closed", &federationv1alpha1.ExportScope{ClusterSelector: &metav1.LabelSelector{}}, "none", "is empty"},
		{"a selector that does not parse", &federationv1alpha1.ExportScope{ClusterSelector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "region", Operator: metav1.LabelSelectorOpIn}}}}, "none", "clusterSelector"},
		{"a bad ClusterID", &federationv1alpha1.ExportScope{ClusterIDs: []string{"Bad_ID"}}, "none", "clusterIDs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := FromSpec(c.spec)
			if got := s.String(); got != c.want {
				t.Errorf("scope %q, want %q", got, c.want)
			}
			if (err != nil) != (c.err != "") || err != nil && !strings.Contains(err.Error(), c.err) {
				t.Errorf("error %v, want one containing %q", err, c.err)
			}
		})
	}
}

func TestRefusalOf(t *testing.T) {
	us := Member{ClusterID: "member-9", Labels: map[string]string{"region": "us"}}
	eu := Member{ClusterID: "member-2", Labels: map[string]string{"region": "eu"}}
	for _, c := range []struct {
		name             string
		spec             *federationv1alpha1.ImportsSpec
		refusesUS, refEU bool
		err              bool
	}{
		{"nothing refused", nil, false, false, false},
		{"by ID", &federationv1alpha1.ImportsSpec{RefuseFrom: []string{"member-9"}}, true, false, false},
		{"by label", &federationv1alpha1.ImportsSpec{RefuseFromSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "us"}}}, true, false, false},
		{"an empty selector refuses nobody", &federationv1alpha1.ImportsSpec{RefuseFromSelector: &metav1.LabelSelector{}}, false, false, false},
		{"an unreadable selector refuses everybody", &federationv1alpha1.ImportsSpec{RefuseFromSelector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "region", Operator: "Near"}}}}, true, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := RefusalOf(c.spec)
			if (err != nil) != c.err {
				t.Fatalf("error %v, want one: %v", err, c.err)
			}
			me := Member{ClusterID: "member-1", Refuses: r}
			for _, x := range []struct {
				exp  Member
				want bool
			}{{us, c.refusesUS}, {eu, c.refEU}} {
				if ok, why := Reaches(Scope{}, x.exp, me); ok == x.want || !ok && why != Refused {
					t.Errorf("%s reaches: %v (%s), want refused %v", x.exp.ClusterID, ok, why, x.want)
				}
			}
			if ok, _ := Reaches(Scope{}, me, me); !ok {
				t.Error("a member refuses its own export")
			}
		})
	}
}

func TestCondition(t *testing.T) {
	members := []Member{
		{ClusterID: "member-1", Labels: map[string]string{"region": "eu"}},
		{ClusterID: "member-2", Labels: map[string]string{"region": "eu"}},
		{ClusterID: "member-3", Labels: map[string]string{"region": "us"}},
		{ClusterID: "member-4", Labels: map[string]string{"region": "eu"}, Refuses: Refusal{ClusterIDs: []string{"member-1"}}},
	}
	eu, _ := ParseSelector("region=eu")
	for _, c := range []struct {
		name     string
		scope    Scope
		scopeErr error
		status   metav1.ConditionStatus
		reason   string
		message  []string
		reached  int
	}{
		{"everywhere, one refusing", Scope{}, nil, metav1.ConditionFalse, federationv1alpha1.ReasonScopeRefused,
			[]string{"exported to 3 of 4 members: member-1, member-2, member-3 (scope all)", "refused by member-4"}, 3},
		{"scoped to a refusing member", Scope{Selector: eu}, nil, metav1.ConditionFalse, federationv1alpha1.ReasonScopeRefused,
			[]string{"refused by member-4", "not in scope: member-3"}, 2},
		{"scoped, all reached", Scope{ClusterIDs: []string{"member-2"}}, nil, metav1.ConditionTrue, federationv1alpha1.ReasonScoped,
			[]string{"exported to 2 of 4 members: member-1, member-2 (scope member-2)", "not in scope: member-3, member-4"}, 2},
		{"an unknown ID", Scope{ClusterIDs: []string{"member-2", "member-9"}}, nil, metav1.ConditionFalse, federationv1alpha1.ReasonUnknownClusters,
			[]string{"not members of the federation: member-9"}, 2},
		{"invalid", Scope{Closed: true}, errors.New("annotation x: bad"), metav1.ConditionFalse, federationv1alpha1.ReasonInvalidScope,
			[]string{"annotation x: bad; exported to its own member only"}, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Condition(c.scope, c.scopeErr, ReachOf(c.scope, members[0], members), Unknown(c.scope, members), 7)
			if !Describes(got, c.scope, c.scopeErr) {
				t.Errorf("the condition does not describe the scope it was written for: %q", got.Message)
			}
			if other := (Scope{ClusterIDs: []string{"member-3"}}); Describes(got, other, nil) {
				t.Errorf("the condition %q describes another scope, %s", got.Message, other)
			}
			if got.Type != federationv1alpha1.ConditionExported || got.Status != c.status || got.Reason != c.reason || got.ObservedGeneration != 7 {
				t.Errorf("condition %+v, want %s %s", got, c.status, c.reason)
			}
			for _, m := range c.message {
				if !strings.Contains(got.Message, m) {
					t.Errorf("message %q lacks %q", got.Message, m)
				}
			}
			n, of, ok := ReachedOf(got.Message)
			if c.reached < 0 {
				if ok {
					t.Errorf("ReachedOf(%q) = %d/%d, want nothing", got.Message, n, of)
				}
				return
			}
			if !ok || n != c.reached || of != len(members) {
				t.Errorf("ReachedOf(%q) = %d/%d %v, want %d/%d", got.Message, n, of, ok, c.reached, len(members))
			}
		})
	}
}

func TestConditionNamesAtMostTen(t *testing.T) {
	var members []Member
	for _, id := range strings.Fields("m00 m01 m02 m03 m04 m05 m06 m07 m08 m09 m10 m11") {
		members = append(members, Member{ClusterID: id})
	}
	got := Condition(Scope{}, nil, ReachOf(Scope{}, members[0], members), nil, 1)
	if !strings.HasSuffix(got.Message, "m09 and 2 more (scope all)") || got.Reason != federationv1alpha1.ReasonEverywhere {
		t.Errorf("message %q (%s)", got.Message, got.Reason)
	}
}
