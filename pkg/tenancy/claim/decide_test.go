package claim

import (
	"testing"
	"time"
)

func TestDecide(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	cur := func(holder string) Lease {
		return Lease{Exists: true, Holder: holder, Renew: now.Add(-time.Second), Duration: 15 * time.Second}
	}
	expired := func(holder string) Lease {
		return Lease{Exists: true, Holder: holder, Renew: now.Add(-16 * time.Second), Duration: 15 * time.Second}
	}
	tests := []struct {
		name    string
		lease   Lease
		planned bool
		want    Decision
	}{
		{"no lease, planned: acquire", Lease{}, true, Decision{Action: Acquire}},
		{"no lease, not planned: nothing", Lease{}, false, Decision{Action: None}},
		{"released lease (no holder), planned: acquire", Lease{Exists: true, Renew: now, Duration: 15 * time.Second}, true, Decision{Action: Acquire}},
		{"expired claim of another instance, planned: acquire", expired("other/r1"), true, Decision{Action: Acquire}},
		{"expired claim of a dead replica, planned: acquire", expired("shared/r2"), true, Decision{Action: Acquire}},
		{"expired own claim, planned: acquire again", expired("shared/r1"), true, Decision{Action: Acquire}},
		{"own claim, planned: renew", cur("shared/r1"), true, Decision{Action: Renew}},
		{"own claim, planned elsewhere: release", cur("shared/r1"), false, Decision{Action: Release}},
		{"claim of another replica, planned here: wait", cur("shared/r2"), true, Decision{Action: Wait, Holder: "shared/r2"}},
		{"claim of another replica, not planned: nothing", cur("shared/r2"), false, Decision{Action: None}},
		{"claim of another instance, planned: contend", cur("tenant-a/r9"), true, Decision{Action: Contend, Holder: "tenant-a/r9"}},
		{"claim of another instance, not planned: nothing", cur("tenant-a/r9"), false, Decision{Action: None}},
		{"instance name prefix of another's: still another", cur("shared-2/r1"), true, Decision{Action: Contend, Holder: "shared-2/r1"}},
		{"holder without replica part, other instance", cur("legacy"), true, Decision{Action: Contend, Holder: "legacy"}},
		{"expires exactly now: not current", Lease{Exists: true, Holder: "other/r1", Renew: now.Add(-15 * time.Second), Duration: 15 * time.Second}, true, Decision{Action: Acquire}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decide(Input{Lease: tt.lease, Me: "shared/r1", Instance: "shared", Planned: tt.planned, Now: now})
			if got != tt.want {
				t.Errorf("Decide = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestOwned(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	d := 15 * time.Second
	tests := []struct {
		name    string
		renewed time.Time
		now     time.Time
		want    bool
	}{
		{"never renewed", time.Time{}, t0, false},
		{"just renewed", t0, t0, true},
		{"before the margin", t0, t0.Add(11 * time.Second), true},
		{"inside the margin: stop before others may take over", t0, t0.Add(12 * time.Second), false},
		{"expired", t0, t0.Add(20 * time.Second), false},
	}
	for _, tt := range tests {
		if got := Owned(tt.renewed, d, tt.now); got != tt.want {
			t.Errorf("%s: Owned = %v, want %v", tt.name, got, tt.want)
		}
	}
}
