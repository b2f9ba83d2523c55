package election

import (
	"fmt"
	"time"
)

// Config are the timings of an election.
type Config struct {
	// LeaseDuration is how long others wait after the Lease last changed before taking it.
	LeaseDuration time.Duration
	// RenewDeadline is how long a leader keeps acting without a successful
	// renewal. It must be shorter than LeaseDuration.
	RenewDeadline time.Duration
	// RetryPeriod is the interval between rounds.
	RetryPeriod time.Duration
	// RenewPeriod is how often a leader renews its Lease (and a manager
	// its heartbeat) while the member's API server answers quickly; after
	// a renewal that took half a retry period or more the leader renews
	// every round (RenewDue). Zero: every round. Below RenewDeadline.
	RenewPeriod time.Duration
	// HandoverHoldDown is how long the preferred supervisor must have been
	// up, and the plan must have preferred it for the member, before it
	// asks a holder for the member.
	HandoverHoldDown time.Duration
}

// DefaultConfig takes a member over within about LeaseDuration+RetryPeriod of its leader dying.
func DefaultConfig() Config {
	return Config{LeaseDuration: 6 * time.Second, RenewDeadline: 4 * time.Second, RetryPeriod: time.Second,
		RenewPeriod: 2 * time.Second, HandoverHoldDown: 10 * time.Second}
}

// Renewal is the interval between a holder's writes of a Lease it renews
// (the leader Lease, a manager's heartbeat) when nothing is slow:
// RenewPeriod, or RetryPeriod when that is unset or longer.
func (c Config) Renewal() time.Duration {
	return max(c.RenewPeriod, c.RetryPeriod)
}

// LateAfter is how long a Lease renewed every Renewal may go unwritten
// before its writer counts as late: a renewal period and two retry
// periods. A watch that delivered no event for that long is not trusted
// (the readers go to the API server), and a heartbeat unchanged for that
// long is a stopped manager's (Observation.HolderStopsAt).
func (c Config) LateAfter() time.Duration {
	return c.Renewal() + 2*c.RetryPeriod
}

// RenewDue tells whether a leader's round renews the Lease: once Renewal
// has passed since the send time of its last successful renewal (within
// half a retry period, the rounds' ticks), or every round while renewals
// are slow (the last one, took, needed half a retry period or more), so
// that a starved API server gets as many attempts before RenewDeadline as
// it always did. A renewal period of a retry period renews every round.
func RenewDue(cfg Config, lastRenew time.Time, took time.Duration, now time.Time) bool {
	half := cfg.RetryPeriod / 2
	return took >= half || now.Sub(lastRenew) >= cfg.Renewal()-half
}

// Acting tells whether a leader that last renewed (the send time of its
// last renewal that succeeded) at lastRenew may still write at now: until
// RenewDeadline has passed. The Fence closes then; the leadership itself
// (the controllers, their caches and queues) is kept until GiveUpAfter,
// and a late renewal that succeeds opens the Fence again in the same term.
func Acting(cfg Config, lastRenew, now time.Time) bool {
	return now.Sub(lastRenew) < cfg.RenewDeadline
}

// GiveUpAfter is how long a leader keeps its leadership without a renewal
// that succeeded: two lease durations. Until then its Fence is closed (from
// RenewDeadline, Acting) but its controllers keep running, so that a renewal
// answered late by a starved API server resumes the same term instead of
// stopping and restarting every controller of the member (at 30 members on
// two cores that was most of the changes of leader: each restart relisted
// and reconciled everything, and made the next renewal later still). Past
// it the leader steps down (StepDownNotRenewed): another supervisor may
// hold the member by then (it may take the Lease LeaseDuration after it saw
// it last change), and this one stops spending on a member it cannot reach.
//
// It is safe at any length: a Lease another supervisor took has another
// resourceVersion, so the late renewal conflicts and the round steps down
// (StepDownTaken); only the holder's own unchanged Lease can be renewed.
func (c Config) GiveUpAfter() time.Duration {
	return 2 * c.LeaseDuration
}

// Validate says what is wrong with the timings, nil when nothing.
func (c Config) Validate() error {
	switch {
	case c.RetryPeriod <= 0:
		return fmt.Errorf("the retry period %s must be positive", c.RetryPeriod)
	case c.RenewDeadline >= c.LeaseDuration:
		return fmt.Errorf("the renew deadline %s must be below the lease duration %s: otherwise two supervisors could lead a member at once", c.RenewDeadline, c.LeaseDuration)
	case c.Renewal() >= c.RenewDeadline:
		return fmt.Errorf("the renew period %s (at least the retry period %s) must be below the renew deadline %s", c.RenewPeriod, c.RetryPeriod, c.RenewDeadline)
	}
	return nil
}

// RoundTimeout is how long one round's requests may take. A leader gets
// the time left before its RenewDeadline (counted from the send time of its
// last renewal that succeeded), and at least two retry periods; any other
// manager gets RenewDeadline for its read and its write together. On a
// slow API server (a starved machine) a renewal is then late instead of
// cancelled, and a take-over completes instead of being cut off between its
// read and its write: the leader's Fence closes only once it really could
// not renew within RenewDeadline, at that moment whatever the round is
// doing. (A fixed two retry periods for the read and the write
// together cancelled every round once one request took a retry period.)
//
// A leader past its RenewDeadline (its Fence closed, its leadership kept
// until GiveUpAfter) gets RenewDeadline too: nothing is lost by waiting for
// the answer, and a late renewal cancelled after two retry periods may
// have been applied all the same, costing a read and a write more of the
// slow API server.
func RoundTimeout(cfg Config, leading bool, lastRenew, now time.Time) time.Duration {
	timeout := 2 * cfg.RetryPeriod
	limit := cfg.RenewDeadline
	if leading && Acting(cfg, lastRenew, now) {
		limit = lastRenew.Add(cfg.RenewDeadline).Sub(now)
	}
	return max(timeout, limit)
}

// Reasons a manager stopped leading a member: the values of the reason
// label of antreaplus_federation_stepdowns_total.
const (
	// StepDownNotRenewed: no renewal succeeded within GiveUpAfter (the
	// member's API server unreachable from this manager, or slower than
	// that). On a member whose API server answers, one is the sign of a
	// starved machine: a spurious change of leader. (A renewal late by
	// less only closed the Fence for a while: late_renewals_total.)
	StepDownNotRenewed = "NotRenewed"
	// StepDownTaken: another supervisor holds the Lease.
	StepDownTaken = "Taken"
	// StepDownHandedOver: handed over to the supervisor the plan prefers.
	StepDownHandedOver = "HandedOver"
	// StepDownReleased: the manager stopped (or left the member) and
	// released the Lease.
	StepDownReleased = "Released"
)

// StepDownReason says why a round that decided StepDown did: one of the
// StepDown reasons and a sentence for the log.
func StepDownReason(cfg Config, o Observation) (reason, why string) {
	if o.Leading && o.Now.Sub(o.LastRenew) >= cfg.GiveUpAfter() {
		return StepDownNotRenewed, "no renewal for " + o.Now.Sub(o.LastRenew).Round(time.Millisecond).String()
	}
	if o.Lease != nil {
		return StepDownTaken, "the lease is held by " + o.Lease.Holder
	}
	return StepDownTaken, "the lease is gone"
}

// Lease is the part of a coordination Lease the election reads.
type Lease struct {
	Holder      string
	Transitions int32
	// HandoverTo names the supervisor the holder is asked to hand over to.
	HandoverTo string
}

// Observation is what one round saw.
type Observation struct {
	Now time.Time
	// Reachable is false when the Lease could not be read.
	Reachable bool
	// Lease is nil when the Lease does not exist.
	Lease *Lease
	// ChangedAt is when this manager last saw the Lease change (or first saw it missing).
	ChangedAt time.Time
	// Rank is this supervisor's rank for the member among live supervisors
	// (0: preferred), -1 if it is not in the plan.
	Rank int
	// Preferred is the supervisor the plan prefers for the member.
	Preferred string
	// PreferredAlive tells whether the preferred supervisor's manager is alive.
	PreferredAlive bool
	// HolderAlive tells whether the holder's manager is alive.
	HolderAlive bool
	// HolderStopsAt is when the holder's manager counts as stopped: its
	// heartbeat (it beats every Renewal) last changed LateAfter before, as
	// this manager saw it. From then on, unless it beats again, its Lease
	// is taken once unchanged for RenewDeadline and half a retry period,
	// instead of LeaseDuration. (HolderAlive, judged over LeaseDuration,
	// is still true for a while.) Zero when unknown: the holder's
	// heartbeat was never seen, or the Peers do not tell.
	HolderStopsAt time.Time
	// MemberSlow tells that this manager's own read of the Lease, this
	// round, took half a retry period or more: the member's API server is
	// slow for everyone, not only for the holder. A live holder's Lease
	// is then waited for until its give-up time (GiveUpAfter), not
	// LeaseDuration: a new leader would meet the same slow API server,
	// and would start by listing and reconciling the whole member again.
	MemberSlow bool
	// Leading is whether this manager acts as leader now.
	Leading bool
	// LastRenew is when this manager last renewed the Lease as holder.
	LastRenew time.Time
	// UpSince is when this manager started.
	UpSince time.Time
	// PreferredSince is since when this manager's plan has named Preferred
	// for the member without a change. A supervisor whose heartbeat is late
	// for a moment (a starved machine) leaves every plan and comes back:
	// the preferred supervisor of its members changes twice, and each
	// change asked for hand-overs (at 30 members, 85 requests and 18
	// hand-overs in one run, each a change of leader); a hand-over is
	// asked for only once the preference has held for HandoverHoldDown.
	PreferredSince time.Time
}

// Action is what a round does.
type Action string

// The actions of a round.
const (
	None            Action = "None"
	Create          Action = "Create"
	Acquire         Action = "Acquire"
	Renew           Action = "Renew"
	RequestHandover Action = "RequestHandover"
	HandOver        Action = "HandOver"
)

// Decision is the outcome of a round.
type Decision struct {
	// StepDown ends the leadership (stops the member's controllers)
	// before Action is taken.
	StepDown bool
	Action   Action
	// Target is the supervisor a HandOver goes to.
	Target string
	// Refused says why a hand-over the Lease asks of me (its holder) is not
	// done: the supervisor asking is not the one the plan prefers, or is
	// not seen alive. Empty otherwise.
	Refused string
}

// Decide is one round of the election for one member, as seen by me.
func Decide(cfg Config, me string, o Observation) Decision {
	d := Decision{Action: None}
	if o.Leading && o.Now.Sub(o.LastRenew) >= cfg.GiveUpAfter() {
		d.StepDown = true
	}
	if !o.Reachable {
		return d
	}
	if o.Lease == nil {
		if o.Now.Sub(o.ChangedAt) >= rankDelay(cfg, o.Rank) {
			d.Action = Create
		}
		return d
	}
	l := o.Lease
	switch {
	case l.Holder == me:
		if l.HandoverTo != "" && l.HandoverTo != me && l.HandoverTo == o.Preferred && o.PreferredAlive {
			return Decision{StepDown: o.Leading, Action: HandOver, Target: l.HandoverTo}
		}
		d.Action = Renew
		switch {
		case l.HandoverTo == "" || l.HandoverTo == me:
		case l.HandoverTo != o.Preferred:
			d.Refused = "the plan prefers " + o.Preferred
		default:
			d.Refused = "its manager is not seen alive"
		}
	case o.Leading:
		// Someone else holds the Lease: stop at once.
		d.StepDown = true
	}
	if l.Holder == me {
		return d
	}
	// A released Lease (no holder) is free at once; a held one once it has
	// not changed for LeaseDuration. Better-ranked supervisors go first.
	//
	// A holder whose manager has stopped (killed, its machine gone) is
	// waited for only until its own deadline has passed: a leader stops
	// acting RenewDeadline after sending its last renewal that succeeded,
	// which was before this manager saw the Lease change; half a retry
	// period more is the margin. Safe whatever the heartbeat says (a live
	// leader that has not renewed for that long has stepped down too); the
	// heartbeat only keeps this shorter wait to holders that look dead, so
	// that a live but slow one keeps LeaseDuration's margin.
	//
	// A live holder's Lease on a member whose API server is slow for me too
	// (MemberSlow) is waited for longer, until the holder's own give-up
	// time: its renewals are late for the same reason my reads are, and a
	// change of leader would only add the new leader's relisting to the
	// slow API server's load. A holder cut off from a member that answers
	// me quickly is still replaced after LeaseDuration.
	wait, rank := takeWait(cfg, o)
	expired := o.Now.Sub(o.ChangedAt) >= wait
	switch {
	case o.Now.Sub(o.ChangedAt) >= wait+rankDelay(cfg, rank):
		d.Action = Acquire
	case !expired && o.Rank == 0 && o.HolderAlive && l.HandoverTo != me &&
		o.Now.Sub(o.UpSince) >= cfg.HandoverHoldDown && o.Now.Sub(o.PreferredSince) >= cfg.HandoverHoldDown:
		d.Action = RequestHandover
	}
	return d
}

// takeWait is how long a Lease held by another must be seen unchanged
// before it is taken, and the rank I take it at.
func takeWait(cfg Config, o Observation) (time.Duration, int) {
	l := o.Lease
	wait := cfg.LeaseDuration
	switch {
	case l.Holder == "":
		wait = 0
	case o.holderStopped():
		wait = cfg.RenewDeadline + cfg.RetryPeriod/2
	case o.HolderAlive && o.MemberSlow:
		wait = cfg.GiveUpAfter()
	}
	// Ranks count the stopped holder among the live supervisors (it is
	// judged alive over LeaseDuration): when it was the preferred one,
	// everyone else moves up a rank.
	rank := o.Rank
	if o.holderStopped() && l.Holder == o.Preferred && rank > 0 {
		rank--
	}
	return wait, rank
}

// holderStopped tells whether the holder's manager counts as stopped now.
func (o Observation) holderStopped() bool {
	return !o.HolderStopsAt.IsZero() && !o.Now.Before(o.HolderStopsAt)
}

// NextRound is when the election of o would next decide otherwise by
// itself, time passing and nothing else changing: the moment a Lease held
// by another (or missing) becomes mine to take at my rank, counting the
// moment its holder's manager will count as stopped if it does not beat
// again (HolderStopsAt), which shortens the wait. Zero when no
// such moment is coming (I hold it, the member is unreachable, it is
// takeable already). A manager that waits for it rather than for its next
// retry period takes over a dead leader's member as soon as it may, not up
// to a retry period later.
func NextRound(cfg Config, me string, o Observation) time.Time {
	var at time.Time
	switch {
	case !o.Reachable:
		return time.Time{}
	case o.Lease == nil:
		at = o.ChangedAt.Add(rankDelay(cfg, o.Rank))
	case o.Lease.Holder == me:
		return time.Time{}
	default:
		wait, rank := takeWait(cfg, o)
		at = o.ChangedAt.Add(wait + rankDelay(cfg, rank))
		if !o.holderStopped() && !o.HolderStopsAt.IsZero() {
			stopped := o
			stopped.Now = o.HolderStopsAt
			wait, rank := takeWait(cfg, stopped)
			if s := later(o.HolderStopsAt, o.ChangedAt.Add(wait+rankDelay(cfg, rank))); s.Before(at) {
				at = s
			}
		}
	}
	if !at.After(o.Now) {
		return time.Time{}
	}
	return at
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// rankDelay lets better-ranked supervisors try first.
func rankDelay(cfg Config, rank int) time.Duration {
	if rank < 0 {
		rank = 8
	}
	return time.Duration(rank) * cfg.RetryPeriod
}
