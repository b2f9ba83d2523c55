// Package claim decides, for one tenant and one replica, what to do with
// the tenant's claim Lease. It is pure: the Lease as read, who asks, the
// plan and the time always give the same answer.
//
// A claim is current while renewTime + leaseDuration is after now. A
// replica acquires a tenant planned for it when no current claim exists,
// renews its own claims while they stay planned for it, and releases the
// ones that are not (so that the replica planned for them takes them at
// once, without waiting for expiry). A current claim of another replica of
// the same instance is waited out: that replica releases it when it sees
// the same plan, or it expires. A current claim of another instance is
// never touched: the asking instance contends, which is reported.
package claim

import (
	"time"
)

// Lease is what a decision needs of a claim Lease.
type Lease struct {
	// Exists: the Lease was found.
	Exists bool
	// Holder is spec.holderIdentity, "<instance>/<replica>" or "".
	Holder string
	// Renew is spec.renewTime.
	Renew time.Time
	// Duration is spec.leaseDurationSeconds.
	Duration time.Duration
}

// Current reports whether someone holds the claim at now.
func (l Lease) Current(now time.Time) bool {
	return l.Exists && l.Holder != "" && now.Before(l.Renew.Add(l.Duration))
}

// Input is one decision's facts.
type Input struct {
	// Lease is the tenant's claim as read.
	Lease Lease
	// Me is this replica's holderIdentity; Instance its instance.
	Me, Instance string
	// Planned: the instance's plan gives the tenant to this replica.
	Planned bool
	// Now is the time of the decision.
	Now time.Time
}

// Action is what to do with the claim.
type Action string

// The actions.
const (
	// None: nothing to write.
	None Action = "None"
	// Acquire: write the claim with this replica as holder.
	Acquire Action = "Acquire"
	// Renew: write a new renewTime on this replica's claim.
	Renew Action = "Renew"
	// Release: give up this replica's claim (delete the Lease).
	Release Action = "Release"
	// Wait: planned here, but another replica of the instance still holds
	// it; it releases it or it expires.
	Wait Action = "Wait"
	// Contend: another instance holds the claim; leave the tenant alone
	// and report it.
	Contend Action = "Contend"
)

// Decision is an action and, for Wait and Contend, the current holder.
type Decision struct {
	Action Action
	Holder string
}

// Decide is what the replica does with the tenant's claim.
func Decide(in Input) Decision {
	l := in.Lease
	if !l.Current(in.Now) {
		if in.Planned {
			return Decision{Action: Acquire}
		}
		return Decision{Action: None}
	}
	switch {
	case l.Holder == in.Me && in.Planned:
		return Decision{Action: Renew}
	case l.Holder == in.Me:
		return Decision{Action: Release}
	case instanceOf(l.Holder) == in.Instance && in.Planned:
		return Decision{Action: Wait, Holder: l.Holder}
	case instanceOf(l.Holder) == in.Instance:
		return Decision{Action: None}
	case in.Planned:
		return Decision{Action: Contend, Holder: l.Holder}
	}
	return Decision{Action: None}
}

// Owned reports whether a replica that last wrote its claim successfully
// at renewed may act for the tenant at now: until the claim would expire,
// less a margin for the clocks of the replicas that may take over.
func Owned(renewed time.Time, duration time.Duration, now time.Time) bool {
	if renewed.IsZero() {
		return false
	}
	return now.Before(renewed.Add(duration - Margin(duration)))
}

// Margin is how long before its claim's expiry a replica stops acting:
// a fifth of the duration.
func Margin(duration time.Duration) time.Duration { return duration / 5 }

func instanceOf(holder string) string {
	for i := 0; i < len(holder); i++ {
		if holder[i] == '/' {
			return holder[:i]
		}
	}
	return holder
}
