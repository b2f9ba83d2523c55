package health

import (
	"testing"
	"time"
)

func TestAssess(t *testing.T) {
	t0 := time.Unix(10_000, 0)
	ago := func(s int) time.Time { return t0.Add(-time.Duration(s) * time.Second) }
	grace := 60 * time.Second
	tests := []struct {
		name            string
		views           []View
		registered      time.Time
		wantUnreachable bool
		wantLastSeen    time.Time
		wantBy          int
	}{
		{"reached by one of two", []View{{"a", true, ago(1), ago(1)}, {"b", false, ago(300), ago(1)}}, ago(1000), false, ago(1), 1},
		{"lost by all within the grace", []View{{"a", false, ago(30), ago(1)}, {"b", false, ago(50), ago(2)}}, ago(1000), false, ago(30), 0},
		{"lost by all past the grace", []View{{"a", false, ago(61), ago(1)}, {"b", false, ago(90), ago(1)}}, ago(1000), true, ago(61), 0},
		{"a stale report of a dead supervisor ages out", []View{{"a", false, ago(100), ago(1)}, {"dead", true, ago(100), ago(100)}}, ago(1000), true, ago(100), 0},
		{"a recent report of another supervisor vouches", []View{{"a", false, ago(100), ago(1)}, {"b", true, ago(5), ago(5)}}, ago(1000), false, ago(5), 1},
		{"never reached, registered long ago", []View{{"a", false, time.Time{}, ago(1)}}, ago(120), true, ago(120), 0},
		{"never reached, just registered", []View{{"a", false, time.Time{}, ago(1)}}, ago(10), false, ago(10), 0},
		{"no reports at all", nil, ago(61), true, ago(61), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Assess(tt.views, t0, grace, tt.registered)
			if v.Unreachable != tt.wantUnreachable || !v.LastSeen.Equal(tt.wantLastSeen) || len(v.ReachableBy) != tt.wantBy {
				t.Errorf("Assess = %+v, want unreachable=%v lastSeen=%s reachableBy=%d", v, tt.wantUnreachable, tt.wantLastSeen, tt.wantBy)
			}
		})
	}
}
