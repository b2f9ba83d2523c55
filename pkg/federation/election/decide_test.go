package election

import (
	"strings"
	"testing"
	"time"
)

// testConfig is the election's timing in the tables: the defaults, with a
// hand-over hold-down of 10 s.
var testConfig = Config{LeaseDuration: 6 * time.Second, RenewDeadline: 4 * time.Second, RetryPeriod: time.Second,
	RenewPeriod: 2 * time.Second, HandoverHoldDown: 10 * time.Second}

func TestDefaultConfigIsTheTables(t *testing.T) {
	if got := DefaultConfig(); got != testConfig {
		t.Fatalf("DefaultConfig() = %+v; the tables assume %+v", got, testConfig)
	}
}

func TestRenewDue(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name string
		cfg  func(c *Config)
		last float64 // seconds
		took time.Duration
		now  float64
		want bool
	}{
		{"quick renewal, one round later: not due", nil, 0, 5 * ms, 1, false},
		{"quick renewal, a round's tick early: not due", nil, 0, 5 * ms, 1.49, false},
		{"quick renewal, two rounds later (a tick's jitter early): due", nil, 0, 5 * ms, 1.99, true},
		{"quick renewal, two rounds later: due", nil, 0, 5 * ms, 2, true},
		{"slow renewal (half a retry period): due every round", nil, 0, 500 * ms, 1, true},
		{"slower renewal: due every round", nil, 0, 1500 * ms, 1.5, true},
		{"a renew period of a retry period: every round", func(c *Config) { c.RenewPeriod = time.Second }, 0, 5 * ms, 1, true},
		{"no renew period: every round", func(c *Config) { c.RenewPeriod = 0 }, 0, 5 * ms, 1, true},
		{"never renewed: due", nil, -1e6, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			if got := RenewDue(cfg, at(tt.last), tt.took, at(tt.now)); got != tt.want {
				t.Errorf("RenewDue(last %v s, took %s, now %v s) = %v; want %v", tt.last, tt.took, tt.now, got, tt.want)
			}
		})
	}
}

func TestLateAfter(t *testing.T) {
	if got, want := testConfig.LateAfter(), 4*time.Second; got != want {
		t.Errorf("LateAfter() = %s; want a renewal period and two retry periods, %s", got, want)
	}
	c := testConfig
	c.RenewPeriod = 0
	if got, want := c.LateAfter(), 3*time.Second; got != want {
		t.Errorf("LateAfter() without a renew period = %s; want three retry periods, %s", got, want)
	}
	// A stopped holder's heartbeat is judged before its Lease may be taken
	// for stopped: LateAfter must not exceed that wait.
	if late, take := testConfig.LateAfter(), testConfig.RenewDeadline+testConfig.RetryPeriod/2; late > take {
		t.Errorf("LateAfter() %s exceeds the wait for a stopped holder's Lease, %s", late, take)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  func(c *Config)
		want string // a part of the error; "" for none
	}{
		{"the defaults", nil, ""},
		{"renew deadline at the lease duration", func(c *Config) { c.RenewDeadline = c.LeaseDuration }, "must be below the lease duration"},
		{"renew period at the renew deadline", func(c *Config) { c.RenewPeriod = c.RenewDeadline }, "must be below the renew deadline"},
		{"retry period at the renew deadline, no renew period", func(c *Config) { c.RenewPeriod, c.RetryPeriod = 0, c.RenewDeadline }, "must be below the renew deadline"},
		{"no retry period", func(c *Config) { c.RetryPeriod = 0 }, "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			err := cfg.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate() = %v; want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate() = %v; want an error saying %q", err, tt.want)
			}
		})
	}
}

// at is s seconds after the tables' time zero.
func at(s float64) time.Time { return time.Unix(1000, 0).Add(time.Duration(s * float64(time.Second))) }

// held is a Lease held by holder.
func held(holder string) *Lease { return &Lease{Holder: holder, Transitions: 3} }

func TestDecide(t *testing.T) {
	cfg := testConfig
	base := func() Observation {
		return Observation{Now: at(0), Reachable: true, ChangedAt: at(0), Rank: 0, Preferred: "me", PreferredAlive: true, UpSince: at(-100)}
	}
	tests := []struct {
		name string
		obs  func(o *Observation)
		want Decision
	}{
		{"missing lease, preferred: create at once", func(o *Observation) {}, Decision{Action: Create}},
		{"missing lease, rank 2: waits two retry periods", func(o *Observation) { o.Rank = 2; o.Now = at(1.5) }, Decision{Action: None}},
		{"missing lease, rank 2 after the wait: create", func(o *Observation) { o.Rank = 2; o.Now = at(2) }, Decision{Action: Create}},
		{"unreachable: do nothing", func(o *Observation) { o.Reachable = false; o.Lease = held("other") }, Decision{Action: None}},
		{"unreachable leader past its renew deadline: fenced, leadership kept", func(o *Observation) {
			o.Reachable, o.Leading, o.LastRenew, o.Now = false, true, at(0), at(4)
		}, Decision{Action: None}},
		{"unreachable leader at its give-up time (two lease durations) steps down", func(o *Observation) {
			o.Reachable, o.Leading, o.LastRenew, o.Now = false, true, at(0), at(12)
		}, Decision{StepDown: true, Action: None}},
		{"my lease: renew", func(o *Observation) { o.Lease, o.Leading, o.LastRenew = held("me"), true, at(0) }, Decision{Action: Renew}},
		{"my lease after a restart: renew and lead again", func(o *Observation) { o.Lease = held("me") }, Decision{Action: Renew}},
		{"my lease past the renew deadline: renew, leadership kept", func(o *Observation) {
			o.Lease, o.Leading, o.LastRenew, o.Now = held("me"), true, at(0), at(4.5)
		}, Decision{Action: Renew}},
		{"my lease past the give-up time: step down, then renew", func(o *Observation) {
			o.Lease, o.Leading, o.LastRenew, o.Now = held("me"), true, at(0), at(12)
		}, Decision{StepDown: true, Action: Renew}},
		{"someone else holds it while I am fenced: step down", func(o *Observation) {
			o.Lease, o.Leading, o.LastRenew, o.Now, o.HolderAlive, o.Rank = held("other"), true, at(0), at(5), true, 1
		}, Decision{StepDown: true, Action: None}},
		{"live holder: wait", func(o *Observation) { o.Lease, o.HolderAlive, o.Rank, o.Preferred = held("other"), true, 1, "other" }, Decision{Action: None}},
		{"someone else holds it while I lead: step down", func(o *Observation) {
			o.Lease, o.Leading, o.LastRenew, o.HolderAlive, o.Rank = held("other"), true, at(0), true, 1
		}, Decision{StepDown: true, Action: None}},
		{"expired, preferred: acquire", func(o *Observation) { o.Lease, o.Now = held("dead"), at(6) }, Decision{Action: Acquire}},
		{"not yet expired: wait", func(o *Observation) { o.Lease, o.Now = held("dead"), at(5.9) }, Decision{Action: None}},
		{"expired, rank 1: waits one more retry period", func(o *Observation) { o.Lease, o.Now, o.Rank = held("dead"), at(6.5), 1 }, Decision{Action: None}},
		{"expired, rank 1 after the wait: acquire", func(o *Observation) { o.Lease, o.Now, o.Rank = held("dead"), at(7), 1 }, Decision{Action: Acquire}},
		{"released (no holder), preferred: acquire once expired", func(o *Observation) { o.Lease, o.Now = held(""), at(0) }, Decision{Action: Acquire}},
		{"not in the plan: acquire last", func(o *Observation) { o.Lease, o.Now, o.Rank = held("dead"), at(13), -1 }, Decision{Action: None}},
		{"not in the plan, long expired: acquire", func(o *Observation) { o.Lease, o.Now, o.Rank = held("dead"), at(14), -1 }, Decision{Action: Acquire}},
		{"holder's manager stopped: acquire after its renew deadline and half a retry period", func(o *Observation) {
			o.Lease, o.Now, o.HolderStopsAt = held("dead"), at(4.5), at(0)
		}, Decision{Action: Acquire}},
		{"holder's manager stopped, before its renew deadline and the margin: wait", func(o *Observation) {
			o.Lease, o.Now, o.HolderStopsAt = held("dead"), at(4.4), at(0)
		}, Decision{Action: None}},
		{"holder's manager stopped, rank 1: one retry period more", func(o *Observation) {
			o.Lease, o.Now, o.HolderStopsAt, o.Rank = held("dead"), at(5.4), at(0), 1
		}, Decision{Action: None}},
		{"holder's manager stopped, rank 1 behind it (it was preferred): no retry period more", func(o *Observation) {
			o.Lease, o.Now, o.HolderStopsAt, o.Rank, o.Preferred = held("dead"), at(4.5), at(0), 1, "dead"
		}, Decision{Action: Acquire}},
		{"holder's manager stopped, rank 2 behind it: one retry period more", func(o *Observation) {
			o.Lease, o.Now, o.HolderStopsAt, o.Rank, o.Preferred = held("dead"), at(5.4), at(0), 2, "dead"
		}, Decision{Action: None}},
		{"live holder, the member slow for me too, rank 1: not taken before its give-up time and a retry period", func(o *Observation) {
			o.Lease, o.Now, o.HolderAlive, o.MemberSlow, o.Rank, o.Preferred = held("other"), at(12.9), true, true, 1, "other"
		}, Decision{Action: None}},
		{"live holder, the member slow for me too, rank 1: taken at the holder's give-up time and a retry period", func(o *Observation) {
			o.Lease, o.Now, o.HolderAlive, o.MemberSlow, o.Rank, o.Preferred = held("other"), at(13), true, true, 1, "other"
		}, Decision{Action: Acquire}},
		{"stopped holder, the member slow: still its renew deadline", func(o *Observation) {
			o.Lease, o.Now, o.HolderAlive, o.HolderStopsAt, o.MemberSlow = held("dead"), at(4.5), true, at(0), true
		}, Decision{Action: Acquire}},
		{"dead holder (not beating), the member slow: LeaseDuration", func(o *Observation) {
			o.Lease, o.Now, o.MemberSlow = held("dead"), at(6), true
		}, Decision{Action: Acquire}},
		{"holder beating: LeaseDuration", func(o *Observation) {
			o.Lease, o.Now, o.HolderAlive, o.Rank, o.Preferred = held("other"), at(5), true, 0, "me"
		}, Decision{Action: RequestHandover}},
		{"holder stopped, still counted alive (over LeaseDuration): taken after its renew deadline", func(o *Observation) {
			o.Lease, o.Now, o.HolderStopsAt, o.HolderAlive, o.Rank, o.Preferred = held("other"), at(4.5), at(0), true, 0, "me"
		}, Decision{Action: Acquire}},
		{"preferred, live non-preferred holder: ask for a hand-over", func(o *Observation) {
			o.Lease, o.HolderAlive = held("other"), true
		}, Decision{Action: RequestHandover}},
		{"preferred but just started: hold down first", func(o *Observation) {
			o.Lease, o.HolderAlive, o.UpSince = held("other"), true, at(-5)
		}, Decision{Action: None}},
		{"preferred for 5 s only (the plan changed): hold down first", func(o *Observation) {
			o.Lease, o.HolderAlive, o.PreferredSince = held("other"), true, at(-5)
		}, Decision{Action: None}},
		{"preferred for the hold-down: ask for a hand-over", func(o *Observation) {
			o.Lease, o.HolderAlive, o.PreferredSince = held("other"), true, at(-10)
		}, Decision{Action: RequestHandover}},
		{"preferred, hand-over already asked: wait", func(o *Observation) {
			o.Lease, o.HolderAlive = &Lease{Holder: "other", HandoverTo: "me"}, true
		}, Decision{Action: None}},
		{"preferred, dead holder: no hand-over, wait for expiry", func(o *Observation) {
			o.Lease = held("other")
		}, Decision{Action: None}},
		{"holder asked for the preferred live supervisor: hand over", func(o *Observation) {
			o.Lease, o.Leading, o.LastRenew = &Lease{Holder: "me", HandoverTo: "pref"}, true, at(0)
			o.Rank, o.Preferred, o.PreferredAlive = 1, "pref", true
		}, Decision{StepDown: true, Action: HandOver, Target: "pref"}},
		{"hand-over asked by a supervisor that is not preferred: keep renewing", func(o *Observation) {
			o.Lease, o.Leading, o.LastRenew = &Lease{Holder: "me", HandoverTo: "intruder"}, true, at(0)
			o.Rank, o.Preferred, o.PreferredAlive = 1, "pref", true
		}, Decision{Action: Renew, Refused: "the plan prefers pref"}},
		{"hand-over asked by a preferred supervisor that is dead: keep renewing", func(o *Observation) {
			o.Lease, o.Leading, o.LastRenew = &Lease{Holder: "me", HandoverTo: "pref"}, true, at(0)
			o.Rank, o.Preferred, o.PreferredAlive = 1, "pref", false
		}, Decision{Action: Renew, Refused: "its manager is not seen alive"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base()
			tt.obs(&o)
			if got := Decide(cfg, "me", o); got != tt.want {
				t.Errorf("Decide = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestNoTwoLeaders checks the safety margin the timings must keep: a leader
// stops acting before anyone else may take its Lease, for every rank.
func TestNoTwoLeaders(t *testing.T) {
	for _, cfg := range []Config{DefaultConfig(), {LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second}} {
		t0 := time.Unix(0, 0)
		for step := time.Duration(0); step <= cfg.LeaseDuration*2; step += 100 * time.Millisecond {
			now := t0.Add(step)
			// The old leader last renewed at t0 and has heard nothing since:
			// it writes while its Fence is open (its leadership lasts longer,
			// fenced: GiveUpAfter).
			old := Decide(cfg, "old", Observation{Now: now, Reachable: false, Leading: true, LastRenew: t0})
			stillActing := Acting(cfg, t0, now)
			if stillActing && old.StepDown {
				t.Fatalf("%+v: at %s the old leader steps down while its Fence is open", cfg, step)
			}
			for rank := 0; rank < 3; rank++ {
				// Whether or not its manager looks stopped, and since when
				// (a live leader's heartbeat may be late too).
				for _, stopsAt := range []time.Time{{}, t0.Add(-time.Hour), t0, t0.Add(2 * time.Second)} {
					stopped := !stopsAt.IsZero() && !now.Before(stopsAt)
					for _, slow := range []bool{false, true} {
						obs := Observation{Now: now, Reachable: true, Lease: &Lease{Holder: "old"}, ChangedAt: t0, Rank: rank,
							HolderStopsAt: stopsAt, HolderAlive: !stopped, MemberSlow: slow, Preferred: "old"}
						newer := Decide(cfg, "new", obs)
						if next := NextRound(cfg, "new", obs); !next.IsZero() && Acting(cfg, t0, next) {
							t.Fatalf("%+v: at %s rank %d plans its next round at %s, while the old leader still acts (holder stops at %v, member slow: %t)",
								cfg, step, rank, next.Sub(t0), stopsAt, slow)
						}
						if stillActing && newer.Action == Acquire {
							t.Fatalf("%+v: at %s the old leader still acts while rank %d acquires (holder stops at %v, member slow: %t)", cfg, step, rank, stopsAt, slow)
						}
					}
				}
			}
		}
	}
}

func TestActingAndGiveUp(t *testing.T) {
	cfg := testConfig
	for _, c := range []struct {
		since float64 // seconds since the last renewal was sent
		want  bool
	}{{0, true}, {3.999, true}, {4, false}, {11, false}} {
		if got := Acting(cfg, at(0), at(c.since)); got != c.want {
			t.Errorf("Acting %v s after the last renewal = %v; want %v", c.since, got, c.want)
		}
	}
	// The give-up time must leave a late renewal more than the renew
	// deadline, or nothing is kept.
	if g := cfg.GiveUpAfter(); g != 12*time.Second || g <= cfg.LeaseDuration {
		t.Errorf("GiveUpAfter() = %s; want two lease durations, 12s", g)
	}
}

func TestRoundTimeout(t *testing.T) {
	cfg := DefaultConfig() // RetryPeriod 1 s, RenewDeadline 4 s
	now := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	for _, c := range []struct {
		name      string
		leading   bool
		lastRenew time.Duration // before now
		want      time.Duration
	}{
		{"a leader just renewed: the time left to its renew deadline", true, 500 * time.Millisecond, 3500 * time.Millisecond},
		{"a leader late: at least two retry periods", true, 3 * time.Second, 2 * time.Second},
		{"a leader past its deadline (fenced, leadership kept): the renew deadline", true, 10 * time.Second, 4 * time.Second},
		{"not leading: the renew deadline for the read and the write", false, 0, 4 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := RoundTimeout(cfg, c.leading, now.Add(-c.lastRenew), now); got != c.want {
				t.Errorf("RoundTimeout = %s, want %s", got, c.want)
			}
		})
	}
}

func TestStepDownReason(t *testing.T) {
	cfg := DefaultConfig()
	now := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	for _, c := range []struct {
		name      string
		o         Observation
		want, why string
	}{
		{"no renewal within the give-up time", Observation{Now: now, Leading: true, LastRenew: now.Add(-12500 * time.Millisecond), Lease: &Lease{Holder: "s1"}}, StepDownNotRenewed, "no renewal for 12.5s"},
		{"someone else holds it", Observation{Now: now, Leading: true, LastRenew: now.Add(-time.Second), Lease: &Lease{Holder: "s2"}}, StepDownTaken, "the lease is held by s2"},
		{"deleted", Observation{Now: now, Leading: true, LastRenew: now.Add(-time.Second)}, StepDownTaken, "the lease is gone"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got, why := StepDownReason(cfg, c.o); got != c.want || why != c.why {
				t.Errorf("StepDownReason = %q, %q; want %q, %q", got, why, c.want, c.why)
			}
		})
	}
}

func TestNextRound(t *testing.T) {
	cfg := testConfig
	base := func() Observation {
		return Observation{Now: at(1), Reachable: true, ChangedAt: at(0), Rank: 0, Preferred: "me", PreferredAlive: true, UpSince: at(-100)}
	}
	for _, tc := range []struct {
		name string
		obs  func(o *Observation)
		want time.Time // zero: none sooner
	}{
		{"a live holder: when it expires", func(o *Observation) { o.Lease, o.HolderAlive = held("other"), true }, at(6)},
		{"a live holder, rank 2: two retry periods after", func(o *Observation) { o.Lease, o.HolderAlive, o.Rank = held("other"), true, 2 }, at(8)},
		{"a stopped holder: its renew deadline and half a retry period", func(o *Observation) { o.Lease, o.HolderStopsAt = held("other"), at(0) }, at(4.5)},
		{"a live holder on a member slow for me too: its give-up time", func(o *Observation) { o.Lease, o.HolderAlive, o.MemberSlow = held("other"), true, true }, at(12)},
		{"a holder that will count as stopped at 3: at its renew deadline and half a retry period", func(o *Observation) {
			o.Lease, o.HolderAlive, o.HolderStopsAt = held("other"), true, at(3)
		}, at(4.5)},
		{"a holder that will count as stopped at 5: then", func(o *Observation) {
			o.Lease, o.HolderAlive, o.HolderStopsAt = held("other"), true, at(5)
		}, at(5)},
		{"a holder that will count as stopped at 5, rank 2: its deadline and two retry periods", func(o *Observation) {
			o.Lease, o.HolderAlive, o.HolderStopsAt, o.Rank = held("other"), true, at(5), 2
		}, at(6.5)},
		{"a holder that will count as stopped at 7: it expires first", func(o *Observation) {
			o.Lease, o.HolderAlive, o.HolderStopsAt = held("other"), true, at(7)
		}, at(6)},
		{"a stopped preferred holder, rank 1: I move up", func(o *Observation) {
			o.Lease, o.HolderStopsAt, o.Rank, o.Preferred = held("other"), at(0), 1, "other"
		}, at(4.5)},
		{"no Lease, rank 2", func(o *Observation) { o.Rank = 2 }, at(2)},
		{"released: takeable now", func(o *Observation) { o.Lease = held("") }, time.Time{}},
		{"expired already: takeable now", func(o *Observation) { o.Lease, o.Now = held("other"), at(7) }, time.Time{}},
		{"mine: nothing to wait for", func(o *Observation) { o.Lease = held("me") }, time.Time{}},
		{"unreachable", func(o *Observation) { o.Lease, o.Reachable = held("other"), false }, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := base()
			tc.obs(&o)
			got := NextRound(cfg, "me", o)
			if !got.Equal(tc.want) {
				t.Errorf("NextRound = %v, want %v", got, tc.want)
			}
			// At that moment, Decide takes the Lease (or creates it).
			if !got.IsZero() {
				o.Now = got
				if d := Decide(cfg, "me", o); d.Action != Acquire && d.Action != Create {
					t.Errorf("at NextRound Decide says %+v, want Acquire or Create", d)
				}
				o.Now = got.Add(-time.Millisecond)
				if d := Decide(cfg, "me", o); d.Action == Acquire || d.Action == Create {
					t.Errorf("just before NextRound Decide already says %+v", d)
				}
			}
		})
	}
}
