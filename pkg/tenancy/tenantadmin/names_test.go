package tenantadmin

import (
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	for _, c := range []struct {
		name      string
		dedicated bool
		want      string // "" : accepted
	}{
		{name: "alpha"},
		{name: "alpha", dedicated: true},
		{name: "team-a-2"},
		{name: "shared"},
		{name: "shared", dedicated: true, want: "shared controller instance"},
		{name: "Alpha", want: "RFC 1123"},
		{name: "", want: "RFC 1123"},
		{name: strings.Repeat("a", 64), want: "no more than 63"},
		{name: "default", want: "never a tenant"},
		{name: "kube-system", want: "never a tenant"},
		{name: "kube-anything", want: "never a tenant"},
		{name: "antreaplus-system", want: "never a tenant"},
	} {
		err := CheckName(c.name, c.dedicated)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckName(%q, %t) = %v, want %q", c.name, c.dedicated, err, c.want)
		}
	}
}

func TestCheckLabels(t *testing.T) {
	for _, c := range []struct {
		labels map[string]string
		want   string
	}{
		{labels: nil},
		{labels: map[string]string{"env": "prod", "example.com/team": "a"}},
		{labels: map[string]string{"env": ""}},
		{labels: map[string]string{"tenancy.antreaplus.io/tenant": "true"}, want: "tenant create sets it"},
		{labels: map[string]string{"tenancy.antreaplus.io/controller": "x"}, want: "--dedicated-controller"},
		{labels: map[string]string{"bad key": "v"}, want: "key:"},
		{labels: map[string]string{"env": "not ok"}, want: "value:"},
	} {
		err := CheckLabels(c.labels)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckLabels(%v) = %v, want %q", c.labels, err, c.want)
		}
	}
}
