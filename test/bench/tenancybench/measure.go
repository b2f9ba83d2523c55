package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"antreaplus.io/antreaplus/pkg/tenancy"
	"antreaplus.io/antreaplus/test/infrastructure/pollstats"
)

// waitLong bounds the waits of a run.
const waitLong = 5 * time.Minute

// polls is what the poll stats of some poll intervals say.
type polls struct {
	// calls and windows (polls) per tenant per poll interval.
	calls, windows float64
	// callers is the most replicas that called one account.
	callers int
	// overlaps of two replicas polling one account.
	overlaps overlaps
}

// callsPerPoll is the calls of one poll of one tenant.
func (p polls) callsPerPoll() float64 { return p.calls / p.windows }

// overlaps counts the calls of a replica for an account while another's
// poll window of it was open: all of them, and those of accounts that two
// replicas called alternately (each while the other's window was open),
// which a hand-over within the poll gap does not explain.
type overlaps struct {
	all, alternating int
}

// alone is what run A measured.
type alone struct {
	importTime time.Duration
	steady     polls
}

// shared is what run B measured.
type shared struct {
	// balanceTime is from the replicas' start to every tenant claimed as
	// planned.
	balanceTime time.Duration
	maxTenants  float64
	// scaleOut are the overlaps from the start until every tenant was
	// polled by its planned owner.
	scaleOut overlaps
	steady   polls
	// victimTenants are the tenants of the replica killed; takeover the
	// time each was claimed by another, from the kill.
	victimTenants int
	takeover      []float64
	// afterKill are the overlaps from the kill to two poll intervals after
	// the take-over.
	afterKill overlaps
	deleted   int
}

// runAlone is run A: one replica manages every tenant.
func (e *env) runAlone(ctx context.Context, s settings) (alone, error) {
	var a alone
	leases, err := e.leaseNamespace(ctx, "tenancybench-a")
	if err != nil {
		return a, err
	}
	started := time.Now()
	r, err := e.startReplica(s, leases, "a-0")
	if err != nil {
		return a, err
	}
	defer r.stop()
	if err := e.waitClaims(ctx, leases, e.plan([]string{r.name})); err != nil {
		return a, err
	}
	if err := e.waitImported(ctx, s); err != nil {
		return a, err
	}
	a.importTime = time.Since(started)
	fmt.Fprintf(os.Stderr, "run A: %d tenants claimed and imported by one replica in %.1fs\n", len(e.tenants), a.importTime.Seconds())
	a.steady = e.count(s, "run A")
	fmt.Fprintf(os.Stderr, "run A: %.2f calls and %.2f polls per tenant per poll interval, %d overlaps\n",
		a.steady.calls, a.steady.windows, a.steady.overlaps.all)
	return a, nil
}

// runShared is run B: s.replicas replicas of the instance share the
// tenants; then the one with the most is killed.
func (e *env) runShared(ctx context.Context, s settings) (shared, error) {
	var b shared
	leases, err := e.leaseNamespace(ctx, "tenancybench-b")
	if err != nil {
		return b, err
	}
	e.emu.ResetPollStats()
	started := time.Now()
	replicas := map[string]*replica{}
	var names []string
	for i := range s.replicas {
		r, err := e.startReplica(s, leases, fmt.Sprintf("b-%d", i))
		if err != nil {
			return b, err
		}
		defer r.stop()
		replicas[r.name] = r
		names = append(names, r.name)
	}
	held := e.plan(names)
	if err := e.waitClaims(ctx, leases, held); err != nil {
		return b, err
	}
	b.balanceTime = time.Since(started)
	per := map[string]int{}
	for _, rep := range held {
		per[rep]++
	}
	for _, n := range per {
		b.maxTenants = max(b.maxTenants, float64(n))
	}
	// The scale-out is over when every tenant was polled by its owner.
	st, err := e.waitPolledBy(ctx, held)
	if err != nil {
		return b, err
	}
	b.scaleOut = overlapsOf("run B, scale-out", st)
	fmt.Fprintf(os.Stderr, "run B: %d tenants claimed as planned in %.1fs, %v per replica; %d overlaps on the way (%d alternating)\n",
		len(held), b.balanceTime.Seconds(), per, b.scaleOut.all, b.scaleOut.alternating)

	b.steady = e.count(s, "run B, steady")
	fmt.Fprintf(os.Stderr, "run B: %.2f calls and %.2f polls per tenant per poll interval, %d overlaps\n",
		b.steady.calls, b.steady.windows, b.steady.overlaps.all)
	now, err := e.holders(ctx, leases)
	if err != nil {
		return b, err
	}
	if !maps.Equal(now, held) {
		return b, fmt.Errorf("claims moved while nothing changed: %v, then %v", held, now)
	}

	// kill -9 the replica with the most tenants.
	victim := names[0]
	for _, n := range names {
		if per[n] > per[victim] {
			victim = n
		}
	}
	var theirs []string
	for tn, rep := range held {
		if rep == victim {
			theirs = append(theirs, tn)
		}
	}
	b.victimTenants = len(theirs)
	before, err := e.vms(ctx)
	if err != nil {
		return b, err
	}
	e.emu.ResetPollStats()
	killed := time.Now()
	replicas[victim].kill()
	taken := map[string]time.Duration{}
	err = waitFor(ctx, waitLong, 100*time.Millisecond, "take-over", func() error {
		now, err := e.holders(ctx, leases)
		if err != nil {
			return err
		}
		at := time.Since(killed)
		for _, tn := range theirs {
			if _, ok := taken[tn]; !ok && now[tn] != "" && now[tn] != victim {
				taken[tn] = at
			}
		}
		if len(taken) < len(theirs) {
			return fmt.Errorf("%d of %d tenants taken over", len(taken), len(theirs))
		}
		return nil
	})
	if err != nil {
		return b, err
	}
	for _, d := range taken {
		b.takeover = append(b.takeover, d.Seconds())
	}
	slices.Sort(b.takeover)
	fmt.Fprintf(os.Stderr, "run B: %s killed with its %d tenants; taken over after %.1fs to %.1fs\n",
		victim, len(theirs), b.takeover[0], b.takeover[len(b.takeover)-1])
	// Two more poll intervals: the survivors poll everything, alone.
	time.Sleep(2 * s.interval)
	b.afterKill = overlapsOf("take-over", e.emu.PollStats())
	after, err := e.vms(ctx)
	if err != nil {
		return b, err
	}
	for uid := range before {
		if !after[uid] {
			b.deleted++
		}
	}
	return b, nil
}

// leaseNamespace creates a namespace for a run's claims.
func (e *env) leaseNamespace(ctx context.Context, name string) (string, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	return name, e.c.Create(ctx, ns)
}

// plan is what every replica computes: which replica claims each tenant.
func (e *env) plan(replicas []string) map[string]string {
	names := make([]string, len(e.tenants))
	for i, tn := range e.tenants {
		names[i] = tn.ns
	}
	return tenancy.Assign(names, replicas)
}

// waitClaims waits until the claims in leases are want.
func (e *env) waitClaims(ctx context.Context, leases string, want map[string]string) error {
	return waitFor(ctx, waitLong, 200*time.Millisecond, "claims", func() error {
		got, err := e.holders(ctx, leases)
		if err != nil {
			return err
		}
		if !maps.Equal(got, want) {
			n := 0
			for tn, rep := range want {
				if got[tn] == rep {
					n++
				}
			}
			return fmt.Errorf("%d of %d tenants claimed as planned", n, len(want))
		}
		return nil
	})
}

// waitImported waits until every tenant's VMs are stored.
func (e *env) waitImported(ctx context.Context, s settings) error {
	want := len(e.tenants) * s.vms
	return waitFor(ctx, waitLong, 500*time.Millisecond, "import", func() error {
		got, err := e.vms(ctx)
		if err != nil {
			return err
		}
		if len(got) != want {
			return fmt.Errorf("%d of %d VMs imported", len(got), want)
		}
		return nil
	})
}

// waitPolledBy waits until every tenant's account was polled by the
// replica planned for it (held) since the poll stats were reset, and
// returns the stats.
func (e *env) waitPolledBy(ctx context.Context, held map[string]string) (pollstats.Stats, error) {
	var st pollstats.Stats
	err := waitFor(ctx, waitLong, 200*time.Millisecond, "a poll of every tenant by its owner", func() error {
		st = e.emu.PollStats()
		n := 0
		for _, tn := range e.tenants {
			if st.Accounts[tn.key].Windows[held[tn.ns]] > 0 {
				n++
			}
		}
		if n < len(e.tenants) {
			return fmt.Errorf("%d of %d tenants polled by their owner", n, len(e.tenants))
		}
		return nil
	})
	return st, err
}

// count resets the poll stats, lets s.polls poll intervals pass and
// returns what they say per tenant and per poll interval.
func (e *env) count(s settings, what string) polls {
	e.emu.ResetPollStats()
	start := time.Now()
	time.Sleep(time.Duration(s.polls) * s.interval)
	st := e.emu.PollStats()
	intervals := float64(time.Since(start)) / float64(s.interval)
	var p polls
	for _, tn := range e.tenants {
		a := st.Accounts[tn.key]
		n := 0
		for _, c := range a.Calls {
			p.calls += float64(c)
			if c > 0 {
				n++
			}
		}
		for _, w := range a.Windows {
			p.windows += float64(w)
		}
		p.callers = max(p.callers, n)
	}
	p.calls /= float64(len(e.tenants)) * intervals
	p.windows /= float64(len(e.tenants)) * intervals
	p.overlaps = overlapsOf(what, st)
	return p
}

// overlapsOf counts the overlaps of st and shows those kept.
func overlapsOf(what string, st pollstats.Stats) overlaps {
	var k overlaps
	for account, a := range st.Accounts {
		k.all += a.OverlapCount
		dirs := map[[2]string]bool{}
		for _, o := range a.Overlaps {
			dirs[o.Callers] = true
			fmt.Fprintf(os.Stderr, "%s: overlap: account %s: %s called %s at %s while %s's poll window was open\n", what, account,
				o.Callers[0], o.Op, o.At.Format("15:04:05.000"), o.Callers[1])
		}
		for d := range dirs {
			if dirs[[2]string{d[1], d[0]}] {
				k.alternating += a.OverlapCount
				break
			}
		}
	}
	return k
}
