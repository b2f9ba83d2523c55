package entityexport

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/exportscope"
)

func TestReachedStatus(t *testing.T) {
	eu, us := map[string]string{"region": "eu"}, map[string]string{"region": "us"}
	members := []exportscope.Member{{ClusterID: "member-1", Labels: eu}, {ClusterID: "member-2", Labels: us},
		{ClusterID: "member-3", Labels: eu, Refuses: exportscope.Refusal{Selector: labels.SelectorFromSet(eu)}}}
	scoped := func(s *federationv1alpha1.ExportScope) exportMod {
		return func(e *federationv1alpha1.EntityExport) { e.Spec.Scope = s }
	}
	tests := []struct {
		name   string
		export exportMod
		want   string // "<clusters> <status>/<reason>: <message>"
	}{
		{name: "no scope: every member but the one refusing", export: scoped(nil),
			want: "member-1,member-2 False/Refused: exported to 2 of 3 members: member-1, member-2 (scope all); refused by member-3 (their ClusterMembership spec.imports)"},
		{name: "by label", export: scoped(&federationv1alpha1.ExportScope{ClusterSelector: &metav1.LabelSelector{MatchLabels: us}}),
			want: "member-1,member-2 True/Scoped: exported to 2 of 3 members: member-1, member-2 (scope region=us); not in scope: member-3"},
		{name: "by ClusterID, one not a member", export: scoped(&federationv1alpha1.ExportScope{ClusterIDs: []string{"member-2", "member-9"}}),
			want: "member-1,member-2 False/UnknownClusters: exported to 2 of 3 members: member-1, member-2 (scope member-2,member-9); not members of the federation: member-9 (reached once they join); not in scope: member-3"},
		{name: "a scope that cannot be read: the exporter alone", export: scoped(&federationv1alpha1.ExportScope{ClusterSelector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "region", Operator: metav1.LabelSelectorOpIn}}}}),
			want: "member-1 False/InvalidScope: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp := export("vms", map[string]string{"tier": "web"}, tt.export)
			status, changed := ReachedStatus(&exp, members[0], members)
			if !changed {
				t.Errorf("changed = false on an export without status")
			}
			if got := describeReached(status); !strings.HasPrefix(got, tt.want) {
				t.Errorf("status = %q, want %q", got, tt.want)
			}
			exp.Status = status
			if _, again := ReachedStatus(&exp, members[0], members); again {
				t.Errorf("changed = true on a status that already says it")
			}
		})
	}
}

func describeReached(s federationv1alpha1.EntityExportStatus) string {
	var ids []string
	for _, c := range s.Clusters {
		ids = append(ids, c.Cluster)
	}
	c := meta.FindStatusCondition(s.Conditions, federationv1alpha1.ConditionExported)
	if c == nil {
		return strings.Join(ids, ",") + " no condition"
	}
	return fmt.Sprintf("%s %s/%s: %s", strings.Join(ids, ","), c.Status, c.Reason, c.Message)
}
