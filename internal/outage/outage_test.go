package outage

import (
	"errors"
	"testing"
	"time"
)

func TestTracker(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	down := errors.New("connection refused")
	type probe struct {
		at   time.Duration
		err  error
		want bool
	}
	cases := []struct {
		name   string
		probes []probe
	}{
		{"always reachable", []probe{{0, nil, false}, {time.Second, nil, false}}},
		{"short outage is left to the reflectors", []probe{{0, nil, false}, {time.Second, down, false}, {2 * time.Second, down, false}, {3 * time.Second, nil, false}}},
		{"long outage refreshes once", []probe{{0, down, false}, {2 * time.Second, down, false}, {5 * time.Second, nil, true}, {6 * time.Second, nil, false}}},
		{"outage measured from its first failure", []probe{{0, nil, false}, {time.Second, down, false}, {3 * time.Second, down, false}, {4 * time.Second, nil, true}}},
		{"two outages", []probe{{0, down, false}, {4 * time.Second, nil, true}, {5 * time.Second, down, false}, {9 * time.Second, nil, true}}},
		{"unreachable at start and never back", []probe{{0, down, false}, {10 * time.Second, down, false}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var o Tracker
			for i, p := range tc.probes {
				if got := o.Observe(t0.Add(p.at), p.err, RefreshAfter); got != p.want {
					t.Fatalf("probe %d at %s (err %v): refresh %v, want %v", i, p.at, p.err, got, p.want)
				}
			}
		})
	}
}
