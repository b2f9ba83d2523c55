package exportscope

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/labels"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func TestWithheld(t *testing.T) {
	eu, us := map[string]string{"region": "eu"}, map[string]string{"region": "us"}
	importer := Member{ClusterID: "member-2", Labels: eu, Refuses: Refusal{ClusterIDs: []string{"member-9"}}}
	m1, m3, m9 := Member{ClusterID: "member-1", Labels: eu}, Member{ClusterID: "member-3", Labels: us}, Member{ClusterID: "member-9", Labels: eu}
	toEU := Scope{Selector: labels.SelectorFromSet(eu)}
	exports := []Export{
		{Exporter: m3, Namespace: "shop", Name: "web", Scope: Scope{Selector: labels.SelectorFromSet(us)}},
		{Exporter: m1, Namespace: "shop", Name: "web", Scope: toEU},
		{Exporter: m9, Namespace: "shop", Name: "web", Scope: toEU},
		{Exporter: m3, Namespace: "a", Name: "pay", Scope: Scope{ClusterIDs: []string{"member-1"}}},
		{Exporter: m3, Namespace: "a", Name: "pay", Scope: Scope{ClusterIDs: []string{"member-1"}}}, // a second export joining the same name
		{Exporter: m3, Namespace: "a", Name: "open"},
		{Exporter: m3, Namespace: "a", Name: "closed", Scope: Scope{Closed: true}},
		{Exporter: importer, Namespace: "a", Name: "own", Scope: Scope{Closed: true}},
	}
	got, more := Withheld(exports, importer)
	want := "a/closed member-3 NotInScope; a/pay member-3 NotInScope; shop/web member-3 NotInScope; shop/web member-9 Refused"
	if s := describeWithheld(got); s != want || more != 0 {
		t.Errorf("Withheld = %s (more %d), want %s", s, more, want)
	}
	if got := WithheldFrom(got, "shop", "web"); fmt.Sprint(got) != "[member-3 (its export's scope leaves this member out) member-9 (refused here: spec.imports of this member's ClusterMembership)]" {
		t.Errorf("WithheldFrom shop/web = %q", got)
	}
	if got := WithheldFrom(got, "a", ""); fmt.Sprint(got) != "[member-3 (its export's scope leaves this member out)]" {
		t.Errorf("WithheldFrom a = %q", got)
	}

	kept := []federationv1alpha1.WithheldExport{{Cluster: "member-5", Namespace: "b", Name: "x", Reason: "NotInScope"}}
	merged, _ := MergeWithheld(got, more, kept)
	if s := describeWithheld(merged); !strings.HasPrefix(s, "a/closed member-3 NotInScope; a/pay member-3 NotInScope; b/x member-5 NotInScope;") {
		t.Errorf("MergeWithheld = %s", s)
	}
}

func TestWithheldIsCapped(t *testing.T) {
	var exports []Export
	for i := range MaxWithheld + 7 {
		exports = append(exports, Export{Exporter: Member{ClusterID: "member-3"}, Namespace: "shop", Name: fmt.Sprintf("svc-%04d", i), Scope: Scope{Closed: true}})
	}
	got, more := Withheld(exports, Member{ClusterID: "member-2"})
	if len(got) != MaxWithheld || more != 7 || got[0].Name != "svc-0000" {
		t.Errorf("Withheld lists %d (first %s), more %d; want %d, svc-0000, 7", len(got), got[0].Name, more, MaxWithheld)
	}
	merged, more := MergeWithheld(got, more, []federationv1alpha1.WithheldExport{{Cluster: "member-4", Namespace: "a", Name: "x", Reason: "NotInScope"}})
	if len(merged) != MaxWithheld || more != 8 || merged[0].Namespace != "a" {
		t.Errorf("MergeWithheld lists %d (first %s), more %d; want %d, a/x, 8", len(merged), merged[0].Name, more, MaxWithheld)
	}
}

func describeWithheld(list []federationv1alpha1.WithheldExport) string {
	var parts []string
	for _, w := range list {
		parts = append(parts, fmt.Sprintf("%s/%s %s %s", w.Namespace, w.Name, w.Cluster, w.Reason))
	}
	return strings.Join(parts, "; ")
}
