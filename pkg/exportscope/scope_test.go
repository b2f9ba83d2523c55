package exportscope

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/labels"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

const (
	sel = federationv1alpha1.AnnotationExportToSelector
	ids = federationv1alpha1.AnnotationExportToClusters
)

func TestFromAnnotations(t *testing.T) {
	for _, c := range []struct {
		name        string
		annotations map[string]string
		want        string // Scope.String()
		err         string // a part of the error, "" for none
	}{
		{"nothing said: every member", nil, "all", ""},
		{"other annotations only", map[string]string{"a": "b"}, "all", ""},
		{"a selector", map[string]string{sel: "region=eu,tier!=test"}, "region=eu,tier!=test", ""},
		{"ClusterIDs, sorted, without duplicates or blanks", map[string]string{ids: " member-3, member-2,,member-3 "}, "member-2,member-3", ""},
		{"both: either", map[string]string{sel: "region=eu", ids: "member-7"}, "region=eu or member-7", ""},
		{"an empty selector is refused, not everywhere", map[string]string{sel: " "}, "none", "empty selector"},
		{"a selector that does not parse", map[string]string{sel: "region in (eu"}, "none", "is not a label selector"},
		{"a ClusterID that is not one", map[string]string{ids: "member-2,Member_3"}, "none", `"Member_3" is not a ClusterID`},
		{"an empty list", map[string]string{ids: " , "}, "none", "no ClusterID"},
		{"one bad, one good: closed", map[string]string{sel: "region=eu", ids: "Bad_ID"}, "none", ids},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := FromAnnotations(c.annotations)
			if got := s.String(); got != c.want {
				t.Errorf("scope %q, want %q", got, c.want)
			}
			switch {
			case c.err == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("error %v, want one saying %q", err, c.err)
			}
		})
	}
}

func TestReaches(t *testing.T) {
	eu := labels.SelectorFromSet(labels.Set{"region": "eu"})
	exporter := Member{ClusterID: "payments", Labels: map[string]string{"region": "eu", "unit": "finance"}}
	euApp := Member{ClusterID: "eu-app", Labels: map[string]string{"region": "eu"}}
	usApp := Member{ClusterID: "us-app", Labels: map[string]string{"region": "us"}}
	for _, c := range []struct {
		name string
		s    Scope
		to   Member
		want bool
		why  Reason
	}{
		{"no scope: every member", Scope{}, usApp, true, ""},
		{"selected by label", Scope{Selector: eu}, euApp, true, ""},
		{"not selected by label", Scope{Selector: eu}, usApp, false, NotInScope},
		{"named", Scope{ClusterIDs: []string{"us-app"}}, usApp, true, ""},
		{"not named", Scope{ClusterIDs: []string{"eu-app"}}, usApp, false, NotInScope},
		{"label or name: the name", Scope{Selector: eu, ClusterIDs: []string{"us-app"}}, usApp, true, ""},
		{"label or name: the label", Scope{Selector: eu, ClusterIDs: []string{"us-app"}}, euApp, true, ""},
		{"a member without labels is not selected", Scope{Selector: eu}, Member{ClusterID: "bare"}, false, NotInScope},
		{"closed: nobody", Scope{Closed: true}, euApp, false, NotInScope},
		{"the exporter always reaches itself", Scope{Closed: true}, exporter, true, ""},
		{"the exporter reaches itself outside its own selector", Scope{Selector: labels.SelectorFromSet(labels.Set{"region": "us"})}, exporter, true, ""},
		{"refused by ClusterID, though in scope", Scope{}, Member{ClusterID: "eu-app", Refuses: Refusal{ClusterIDs: []string{"payments"}}}, false, Refused},
		{"refused by label", Scope{Selector: eu}, Member{ClusterID: "eu-app", Labels: map[string]string{"region": "eu"},
			Refuses: Refusal{Selector: labels.SelectorFromSet(labels.Set{"unit": "finance"})}}, false, Refused},
		{"a refusal of others", Scope{}, Member{ClusterID: "eu-app", Refuses: Refusal{ClusterIDs: []string{"ads"},
			Selector: labels.SelectorFromSet(labels.Set{"unit": "ads"})}}, true, ""},
		{"an empty refusal selector refuses nothing", Scope{}, Member{ClusterID: "eu-app", Refuses: Refusal{Selector: labels.Everything()}}, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got, why := Reaches(c.s, exporter, c.to); got != c.want || why != c.why {
				t.Errorf("Reaches = %t, %q; want %t, %q", got, why, c.want, c.why)
			}
		})
	}
}

func TestReachOf(t *testing.T) {
	exporter := Member{ClusterID: "member-1"}
	members := []Member{
		{ClusterID: "member-4", Labels: map[string]string{"region": "eu"}},
		exporter,
		{ClusterID: "member-3", Refuses: Refusal{ClusterIDs: []string{"member-1"}}},
		{ClusterID: "member-2", Labels: map[string]string{"region": "us"}},
	}
	s := Scope{Selector: labels.SelectorFromSet(labels.Set{"region": "eu"}), ClusterIDs: []string{"member-3", "member-9"}}
	want := []Reach{
		{ClusterID: "member-1", Reached: true},
		{ClusterID: "member-2", Reason: NotInScope},
		{ClusterID: "member-3", Reason: Refused},
		{ClusterID: "member-4", Reached: true},
	}
	if got := ReachOf(s, exporter, members); !slices.Equal(got, want) {
		t.Errorf("ReachOf = %+v\nwant %+v", got, want)
	}
	if got := Unknown(s, members); !slices.Equal(got, []string{"member-9"}) {
		t.Errorf("Unknown = %q, want [member-9]: a member not (yet) in the registry", got)
	}
}
