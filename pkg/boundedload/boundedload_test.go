package boundedload

import (
	"fmt"
	"testing"
)

func ids(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", prefix, i+1)
	}
	return out
}

func TestComputeIsBalanced(t *testing.T) {
	for _, tc := range []struct{ members, supervisors int }{
		{1, 1}, {6, 3}, {10, 3}, {7, 2}, {30, 3}, {30, 7}, {2, 5}, {100, 9},
	} {
		t.Run(fmt.Sprintf("%d members %d supervisors", tc.members, tc.supervisors), func(t *testing.T) {
			members, sups := ids("m", tc.members), ids("s", tc.supervisors)
			plan := Compute(members, sups)
			capacity := (tc.members + tc.supervisors - 1) / tc.supervisors
			total := 0
			for s, n := range plan.Load() {
				if n > capacity {
					t.Errorf("%s preferred for %d members, cap is %d", s, n, capacity)
				}
				total += n
			}
			if total != tc.members {
				t.Errorf("%d members placed, want %d", total, tc.members)
			}
			for _, m := range members {
				if got := len(plan.Order(m)); got != tc.supervisors {
					t.Errorf("%s ranks %d supervisors, want %d", m, got, tc.supervisors)
				}
				if plan.Rank(m, plan.Preferred(m)) != 0 {
					t.Errorf("preferred supervisor of %s does not rank 0", m)
				}
			}
		})
	}
}

func TestComputeIsDeterministic(t *testing.T) {
	a := Compute([]string{"c", "a", "b", "a"}, []string{"y", "x"})
	b := Compute([]string{"b", "c", "a"}, []string{"x", "y", "x"})
	for _, m := range []string{"a", "b", "c"} {
		if fmt.Sprint(a.Order(m)) != fmt.Sprint(b.Order(m)) {
			t.Errorf("%s: %v vs %v: input order or duplicates changed the plan", m, a.Order(m), b.Order(m))
		}
	}
}

// moves counts members whose preferred supervisor differs between two plans.
func moves(members []string, before, after Plan) int {
	n := 0
	for _, m := range members {
		if before.Preferred(m) != after.Preferred(m) {
			n++
		}
	}
	return n
}

func TestSupervisorLeavingAndReturningMovesFewMembers(t *testing.T) {
	for _, tc := range []struct{ members, supervisors, maxMoves int }{
		// Losing one of s supervisors must move its ~members/s members, plus
		// at most a few displaced by the cap.
		{6, 3, 4},
		{30, 3, 14},
		{30, 5, 10},
	} {
		t.Run(fmt.Sprintf("%d/%d", tc.members, tc.supervisors), func(t *testing.T) {
			members, sups := ids("m", tc.members), ids("s", tc.supervisors)
			full := Compute(members, sups)
			degraded := Compute(members, sups[1:])
			if got := moves(members, full, degraded); got > tc.maxMoves {
				t.Errorf("supervisor leaving moved %d members, want <= %d", got, tc.maxMoves)
			}
			if got := moves(members, degraded, Compute(members, sups)); got > tc.maxMoves {
				t.Errorf("supervisor returning moved %d members, want <= %d", got, tc.maxMoves)
			}
			// Returning restores exactly the original plan.
			if got := moves(members, full, Compute(members, sups)); got != 0 {
				t.Errorf("plan after return differs from the original in %d members", got)
			}
		})
	}
}

func TestRankOfUnknown(t *testing.T) {
	p := Compute([]string{"m"}, []string{"s"})
	if p.Rank("m", "other") != -1 || p.Rank("other", "s") != -1 || p.Preferred("other") != "" {
		t.Error("unknown member or supervisor must rank -1 and have no preferred supervisor")
	}
	if Compute([]string{"m"}, nil).Preferred("m") != "" {
		t.Error("no supervisors: no preferred supervisor")
	}
}

// BenchmarkCompute is one plan, at the sizes of docs/scale.md: what every
// election round paid before the federation manager kept its plan until
// the registry or the live supervisors change (30 rounds a second per
// supervisor at 30 members, 500 at 500).
func BenchmarkCompute(b *testing.B) {
	for _, size := range []struct{ members, supervisors int }{{30, 3}, {100, 10}, {500, 10}} {
		var members, supervisors []string
		for i := range size.members {
			members = append(members, fmt.Sprintf("member-%d", i))
		}
		for i := range size.supervisors {
			supervisors = append(supervisors, fmt.Sprintf("member-%d", i))
		}
		b.Run(fmt.Sprintf("members=%d/supervisors=%d", size.members, size.supervisors), func(b *testing.B) {
			for b.Loop() {
				Compute(members, supervisors)
			}
		})
	}
}
