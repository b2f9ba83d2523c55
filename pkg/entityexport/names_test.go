package entityexport

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestRemoteName(t *testing.T) {
	long := func(n int, c string) string { return strings.Repeat(c, n) }
	tests := []struct {
		name, cluster, entity string
		want                  string // "" : only checked to be valid and at most 253 long
	}{
		{name: "short", cluster: "member-1", entity: "nic-a", want: "member-1.nic-a"},
		{name: "exactly 253", cluster: "member-1", entity: long(253-9, "a"), want: "member-1." + long(253-9, "a")},
		{name: "254: shortened", cluster: "member-1", entity: long(254-9, "a")},
		{name: "cut at a dot", cluster: "member-1", entity: long(232, "a") + "." + long(40, "b")},
		{name: "cut at a dash", cluster: "member-1", entity: long(232, "a") + "-" + long(40, "b")},
		{name: "long cluster ID", cluster: long(128, "c"), entity: long(200, "e")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RemoteName(tt.cluster, tt.entity)
			if errs := validation.IsDNS1123Subdomain(got); len(errs) > 0 {
				t.Fatalf("RemoteName = %q: %v", got, errs)
			}
			if tt.want != "" && got != tt.want {
				t.Errorf("RemoteName = %q, want %q", got, tt.want)
			}
			if got != RemoteName(tt.cluster, tt.entity) {
				t.Error("RemoteName is not stable")
			}
		})
	}
	a, b := RemoteName("member-1", long(300, "a")+"x"), RemoteName("member-1", long(300, "a")+"y")
	if a == b {
		t.Errorf("two long names share %q", a)
	}
}
