package exportscope

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func TestJoinTarget(t *testing.T) {
	own := types.NamespacedName{Namespace: "a", Name: "pay"}
	for _, c := range []struct {
		name  string
		value *string
		want  string
		ok    bool
		err   string
		joins bool
	}{
		{"no annotation: its own name", nil, "a/pay", true, "", false},
		{"another Namespace's Service", ptr("b/web"), "b/web", true, "", true},
		{"its own name said again", ptr("a/pay"), "a/pay", true, "", false},
		{"spaces around", ptr(" b/web "), "b/web", true, "", true},
		{"no slash", ptr("web"), "/", false, "is not namespace/name", true},
		{"not a DNS label", ptr("b/Web_1"), "/", false, `"Web_1"`, true},
		{"empty name", ptr("b/"), "/", false, "in \"b/\"", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ann := map[string]string{}
			if c.value != nil {
				ann[federationv1alpha1.AnnotationJoins] = *c.value
			}
			got, ok, err := JoinTarget(own, ann)
			if got.String() != c.want || ok != c.ok {
				t.Errorf("JoinTarget = %s %v, want %s %v", got, ok, c.want, c.ok)
			}
			if (err != nil) != (c.err != "") || err != nil && !strings.Contains(err.Error(), c.err) {
				t.Errorf("error %v, want one containing %q", err, c.err)
			}
			if joins := !ok || got != own; joins != c.joins {
				t.Errorf("joins another Service: %v, want %v", joins, c.joins)
			}
		})
	}
}

func TestAccepts(t *testing.T) {
	for _, c := range []struct {
		name   string
		labels map[string]string
		from   string
		want   bool
	}{
		{"its own Namespace", nil, "b", true},
		{"not labelled", nil, "a", false},
		{"labelled for a", map[string]string{AcceptLabel("a"): "true"}, "a", true},
		{"labelled for another", map[string]string{AcceptLabel("c"): "true"}, "a", false},
		{"labelled false", map[string]string{AcceptLabel("a"): "false"}, "a", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Accepts("b", c.labels, c.from); got != c.want {
				t.Errorf("Accepts = %v, want %v", got, c.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }
