// Package health decides, from what every supervisor reports, whether a
// member is unreachable from the whole federation. It is pure.
//
// Each supervisor's manager records in its own registry the last time it
// reached each member. A member is unreachable from the federation when no
// supervisor has reached it for longer than the grace period; only then may
// its exports be withdrawn. A supervisor whose report cannot be read counts
// with the last report seen from it, so a dead supervisor's stale view ages
// out instead of vouching for the member forever.
//
// # Usage
//
// See ExampleAssess.
package health

import "time"

// View is one supervisor's report on one member.
type View struct {
	Supervisor string
	// Reachable is the supervisor's last probe result.
	Reachable bool
	// LastReachable is when the supervisor last reached the member (zero: never).
	LastReachable time.Time
	// ReportedAt is when the supervisor wrote the report. A report older
	// than the grace no longer vouches for the member.
	ReportedAt time.Time
}

// Verdict is the federation's view of a member.
type Verdict struct {
	// ReachableBy lists the supervisors whose last probe reached the member.
	ReachableBy []string
	// LastSeen is the last time any supervisor reached the member, or the
	// time it was registered if none ever did.
	LastSeen time.Time
	// Unreachable is true once no supervisor reached it for longer than the grace.
	Unreachable bool
}

// Assess combines the views of all supervisors.
func Assess(views []View, now time.Time, grace time.Duration, registered time.Time) Verdict {
	v := Verdict{LastSeen: registered}
	for _, view := range views {
		if view.Reachable && now.Sub(view.ReportedAt) <= grace {
			v.ReachableBy = append(v.ReachableBy, view.Supervisor)
		}
		if view.LastReachable.After(v.LastSeen) {
			v.LastSeen = view.LastReachable
		}
	}
	v.Unreachable = len(v.ReachableBy) == 0 && now.Sub(v.LastSeen) > grace
	return v
}
