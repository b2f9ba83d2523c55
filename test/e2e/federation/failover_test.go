package federation

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"antreaplus.io/antreaplus/test/framework"
)

// bound is the time within which orphaned members must be led again
// (the Lease duration is 6 s); the figures of record come from `make bench`.
const bound = 15 * time.Second

func TestFormationIsBalanced(t *testing.T) {
	f := federation(t)
	capacity := (nClusters + nSupervisors - 1) / nSupervisors
	// After the hand-over hold-down every supervisor leads at most its share.
	framework.Eventually(t, 30*time.Second, func() error {
		for s, n := range framework.Count(f.Leaders(t)) {
			if n > capacity {
				return fmt.Errorf("%s leads %d members, more than ceil(%d/%d) = %d", s, n, nClusters, nSupervisors, capacity)
			}
		}
		return nil
	})
}

func busiest(leaders map[string]string) string {
	best, most := "", -1
	for s, n := range framework.Count(leaders) {
		if n > most || (n == most && s < best) {
			best, most = s, n
		}
	}
	return best
}

// failOver signals the manager of the supervisor leading the most members
// once the federation is settled, waits until the others lead every
// member, and checks that only the victim's members moved. It returns the
// victim and the leaders before and after.
func failOver(t *testing.T, f *framework.Federation, sig syscall.Signal, what string) (victim string, before, after map[string]string) {
	t.Helper()
	before = f.WaitSettled(t, time.Minute)
	victim = busiest(before)
	var orphans []string
	for m, l := range before {
		if l == victim {
			orphans = append(orphans, m)
		}
	}
	start := time.Now()
	f.Signal(t, victim, sig)
	after = f.WaitAllLed(t, bound, without(f.Supervisors, victim)...)
	took := time.Since(start)
	t.Logf("%s of %s's manager: its %d members %v led again by %v in %s", what, victim, len(orphans), orphans, after, took.Round(10*time.Millisecond))
	for m, l := range before {
		if l != victim && after[m] != l {
			t.Errorf("member %s changed leader from %s to %s although its leader was not signalled", m, l, after[m])
		}
	}
	return victim, before, after
}

func TestKillSupervisorManager(t *testing.T) {
	f := federation(t)
	audit := startAudit(t, f.Members)
	victim, before, after := failOver(t, f, syscall.SIGKILL, "kill -9")

	// The supervisor comes back: it gets its share back, and each member moves at most once.
	f.Restart(t, victim)
	framework.Eventually(t, 40*time.Second, func() error {
		if n := framework.Count(f.Leaders(t))[victim]; n == 0 {
			return fmt.Errorf("%s leads nothing yet", victim)
		}
		return nil
	})
	time.Sleep(8 * time.Second)
	final := f.Leaders(t)
	for m := range final {
		if before[m] != victim && final[m] != after[m] {
			t.Errorf("member %s moved from %s to %s on the return although %s never led it: a hand-over storm", m, after[m], final[m], victim)
		}
	}
	if n, details := audit.deposedWrites(); n > 0 {
		t.Errorf("%d writes by deposed leaders: %v\nall writes: %s", n, details, audit)
	}
}

// TestStopSupervisorManager: a manager stopped gracefully (SIGTERM, a
// rolling upgrade) releases its heartbeat, then its members' Leases; the
// other supervisors take its members without waiting for it, and nothing
// else moves.
func TestStopSupervisorManager(t *testing.T) {
	f := federation(t)
	audit := startAudit(t, f.Members)
	victim, _, _ := failOver(t, f, syscall.SIGTERM, "SIGTERM")
	framework.Eventually(t, 10*time.Second, func() error {
		l := f.Heartbeat(t, victim)
		if l == nil {
			return fmt.Errorf("%s's heartbeat Lease cannot be read", victim)
		}
		if h := ptr.Deref(l.Spec.HolderIdentity, ""); h != "" {
			return fmt.Errorf("%s's heartbeat is held by %q; want it released as its manager stopped", victim, h)
		}
		return nil
	})

	f.Restart(t, victim)
	framework.Eventually(t, 40*time.Second, func() error {
		if n := framework.Count(f.Leaders(t))[victim]; n == 0 {
			return fmt.Errorf("%s leads nothing yet", victim)
		}
		if l := f.Heartbeat(t, victim); l == nil || ptr.Deref(l.Spec.HolderIdentity, "") != victim {
			return fmt.Errorf("%s's heartbeat is not held by its manager again", victim)
		}
		return nil
	})
	if n, details := audit.deposedWrites(); n > 0 {
		t.Errorf("%d writes by deposed leaders: %v\nall writes: %s", n, details, audit)
	}
}

func TestPausedLeaderIsFenced(t *testing.T) {
	f := federation(t)
	audit := startAudit(t, f.Members)
	before := f.WaitSettled(t, time.Minute)
	victim := busiest(before)
	f.Signal(t, victim, syscall.SIGSTOP)
	resumed := false
	defer func() {
		if !resumed {
			f.Signal(t, victim, syscall.SIGCONT)
		}
	}()
	f.WaitAllLed(t, bound, without(f.Supervisors, victim)...)
	// The new leaders have written their status; the sleeper wakes up with
	// those changes queued, and its writes must be refused by the fence.
	f.Signal(t, victim, syscall.SIGCONT)
	resumed = true
	time.Sleep(5 * time.Second)
	if n, details := audit.deposedWrites(); n > 0 {
		t.Errorf("%d writes by the paused, deposed leader: %v\nall writes: %s", n, details, audit)
	}
	if pid := f.ManagerPid(victim); pid == 0 {
		t.Errorf("the paused manager of %s exited after it resumed", victim)
	}
	f.WaitAllLed(t, 30*time.Second)
}

func without(xs []string, x string) []string {
	var out []string
	for _, y := range xs {
		if y != x {
			out = append(out, y)
		}
	}
	return out
}
