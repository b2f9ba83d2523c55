package tenancy

import (
	"fmt"
	"slices"
	"testing"
	"time"

	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
)

func tenants(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("tenant-%03d", i)
	}
	return out
}

func loads(plan map[string]string) map[string]int {
	l := map[string]int{}
	for _, r := range plan {
		l[r]++
	}
	return l
}

func TestAssign(t *testing.T) {
	tests := []struct {
		name     string
		tenants  int
		replicas []string
		maxLoad  int
	}{
		{"100 tenants over 3 replicas: at most ceil(100/3)", 100, []string{"a", "b", "c"}, 34},
		{"one replica takes all", 5, []string{"a"}, 5},
		{"fewer tenants than replicas: one each at most", 2, []string{"a", "b", "c"}, 1},
		{"no tenants", 0, []string{"a"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := Assign(tenants(tt.tenants), tt.replicas)
			if len(plan) != tt.tenants {
				t.Fatalf("%d tenants planned, want %d", len(plan), tt.tenants)
			}
			for r, n := range loads(plan) {
				if n > tt.maxLoad {
					t.Errorf("replica %s plans %d tenants, more than %d", r, n, tt.maxLoad)
				}
			}
		})
	}
	if plan := Assign(tenants(3), nil); len(plan) != 0 {
		t.Errorf("no replicas: plan %v, want none", plan)
	}
}

// TestAssignMovesOnlyWhatMust: when a replica leaves, only its tenants
// move; when one joins, the others keep all but its share.
func TestAssignMovesOnlyWhatMust(t *testing.T) {
	ts := tenants(90)
	three := Assign(ts, []string{"a", "b", "c"})
	two := Assign(ts, []string{"a", "b"})
	moved := 0
	for _, tn := range ts {
		if three[tn] != "c" && two[tn] != three[tn] {
			moved++
		}
	}
	// Bounded loads may move a few of the survivors' tenants to make
	// room; consistent hashing keeps it small.
	if moved > len(ts)/6 {
		t.Errorf("%d tenants of surviving replicas moved when c left, want few", moved)
	}
	four := Assign(ts, []string{"a", "b", "c", "d"})
	kept := 0
	for _, tn := range ts {
		if four[tn] == three[tn] {
			kept++
		}
	}
	if kept < len(ts)*3/4-len(ts)/10 {
		t.Errorf("only %d of %d tenants kept their replica when d joined", kept, len(ts))
	}
}

func TestReplicaLeaseName(t *testing.T) {
	if n := ReplicaLeaseName("shared", "cc-7d9f"); n != "tenancy-shared-cc-7d9f" {
		t.Errorf("ReplicaLeaseName = %s", n)
	}
	long := ReplicaLeaseName(fmt.Sprintf("%0250d", 1), "r")
	if len(long) > 253 {
		t.Errorf("long name has %d characters", len(long))
	}
	if i, r := SplitHolder("shared/r1"); i != "shared" || r != "r1" {
		t.Errorf("SplitHolder = %q, %q", i, r)
	}
}

func TestContenders(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return now.Add(-d).Format(time.RFC3339) }
	got := Contenders(map[string]string{
		tenancyv1alpha1.AnnotationContenderPrefix + "rogue":  at(10 * time.Second),
		tenancyv1alpha1.AnnotationContenderPrefix + "beta":   at(29 * time.Second),
		tenancyv1alpha1.AnnotationContenderPrefix + "old":    at(31 * time.Second), // stopped contending
		tenancyv1alpha1.AnnotationContenderPrefix + "shared": at(time.Second),      // the holder's own instance
		tenancyv1alpha1.AnnotationContenderPrefix:            at(time.Second),
		tenancyv1alpha1.AnnotationContenderPrefix + "bad":    "yesterday",
		"other.example.com/x":                                at(time.Second),
	}, "shared", ContenderWindow(15*time.Second), now)
	if want := []string{"beta", "rogue"}; !slices.Equal(got, want) {
		t.Errorf("Contenders = %v, want %v", got, want)
	}
}
