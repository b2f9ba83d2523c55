package tenantoverlaps

import (
	"testing"
	"time"

	"antreaplus.io/antreaplus/pkg/tenancy/overlap"
)

func TestNextExpiry(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	claim := func(holder string, renewedAgo, duration time.Duration) overlap.Claim {
		return overlap.Claim{Tenant: "t", Holder: holder, Renew: now.Add(-renewedAgo), Duration: duration}
	}
	for _, tc := range []struct {
		name   string
		claims map[string][]overlap.Claim
		want   time.Duration // after now; 0: none
	}{
		{name: "no claims"},
		{name: "only expired or released claims", claims: map[string][]overlap.Claim{
			"member-1": {claim("a/0", 20*time.Second, 15*time.Second)},
			"member-2": {claim("", time.Second, 15*time.Second)},
		}},
		{name: "the first current claim of every member", claims: map[string][]overlap.Claim{
			"member-1": {claim("a/0", 2*time.Second, 15*time.Second), claim("a/1", 20*time.Second, 15*time.Second)},
			"member-2": {claim("b/0", 10*time.Second, 15*time.Second)},
		}, want: 5*time.Second + 10*time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at, ok := nextExpiry(tc.claims, now)
			if ok != (tc.want != 0) {
				t.Fatalf("nextExpiry found one: %t, want %t", ok, tc.want != 0)
			}
			if ok && at.Sub(now) != tc.want {
				t.Errorf("next expiry in %s, want %s", at.Sub(now), tc.want)
			}
		})
	}
}
