package joins

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// TestJoinIndex follows one export through a join, a move to another
// Service, a wrong annotation and its deletion: each event names the
// names whose import may change, and joining lists the member's exports
// that join a name.
func TestJoinIndex(t *testing.T) {
	j := New()
	pay := types.NamespacedName{Namespace: "a", Name: "pay"}
	joins := func(v string) map[string]string { return map[string]string{federationv1alpha1.AnnotationJoins: v} }
	web, api := types.NamespacedName{Namespace: "b", Name: "web"}, types.NamespacedName{Namespace: "c", Name: "api"}
	for _, step := range []struct {
		name        string
		annotations map[string]string
		gone        bool
		affected    string
		joiningWeb  string
		joiningAPI  string
	}{
		{"plain export", nil, false, "[a/pay]", "[]", "[]"},
		{"joins b/web", joins("b/web"), false, "[a/pay b/web]", "[a/pay]", "[]"},
		{"moves to c/api", joins("c/api"), false, "[a/pay b/web c/api]", "[]", "[a/pay]"},
		{"a wrong annotation joins nothing", joins("api"), false, "[a/pay c/api]", "[]", "[]"},
		{"joins b/web again", joins("b/web"), false, "[a/pay b/web]", "[a/pay]", "[]"},
		{"unexported", joins("b/web"), true, "[a/pay b/web]", "[]", "[]"},
	} {
		if got := fmt.Sprint(j.Set("member-1", pay, step.annotations, step.gone)); got != step.affected {
			t.Errorf("%s: affected %s, want %s", step.name, got, step.affected)
		}
		if got := fmt.Sprint(j.Joining("member-1", web)); got != step.joiningWeb {
			t.Errorf("%s: joining b/web %s, want %s", step.name, got, step.joiningWeb)
		}
		if got := fmt.Sprint(j.Joining("member-1", api)); got != step.joiningAPI {
			t.Errorf("%s: joining c/api %s, want %s", step.name, got, step.joiningAPI)
		}
		if got, ok := j.Target("member-1", pay); ok != (step.joiningWeb != "[]" || step.joiningAPI != "[]") || (ok && got != web && got != api) {
			t.Errorf("%s: Target = %s, %t", step.name, got, ok)
		}
		if got := fmt.Sprint(j.Joining("member-2", web)); got != "[]" {
			t.Errorf("%s: member-2 joins b/web with %s", step.name, got)
		}
	}
	if got := j.TargetsIn("b"); len(got) != 0 {
		t.Errorf("targets left in b: %v", got)
	}
}
