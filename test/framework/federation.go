package framework

import (
	"context"
	"fmt"
	"maps"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/election"
	"antreaplus.io/antreaplus/pkg/sandbox"
)

// Federation is a federation of all the clusters, with real federation
// manager processes in the supervisors.
type Federation struct {
	c           *Clusters
	ID          string
	Supervisors []string
	Members     []string
	binary      string
	args        []string
	// started is when a manager was last started (Federate, Restart).
	started time.Time
}

// Federate forms a federation of every cluster with the first n as
// supervisors, each running a federation manager built from this
// repository with the given extra flags.
func (c *Clusters) Federate(ctx context.Context, id string, n int, managerArgs ...string) (*Federation, error) {
	bin, err := Binary("federation-manager")
	if err != nil {
		return nil, err
	}
	err = c.Sandbox.Federate(ctx, sandbox.FederationOptions{FederationID: id, Supervisors: n, ManagerBinary: bin, ManagerArgs: managerArgs})
	if err != nil {
		return nil, err
	}
	return &Federation{c: c, ID: id, Supervisors: c.Names[:n], Members: c.Names, binary: bin, args: managerArgs, started: time.Now()}, nil
}

// Lease returns a member's leader Lease holder and transitions ("" when none or unreadable).
func (f *Federation) Lease(t testing.TB, member string) (string, int32) {
	t.Helper()
	l := f.leaderLease(t, member)
	if l == nil {
		return "", 0
	}
	return leaseHolder(l), ptr.Deref(l.Spec.LeaseTransitions, 0)
}

// leaderLease reads a member's leader Lease; nil when unreadable.
func (f *Federation) leaderLease(t testing.TB, member string) *coordinationv1.Lease {
	t.Helper()
	return f.lease(t, member, federationv1alpha1.LeaderLease)
}

// Heartbeat reads a supervisor's manager Lease (its heartbeat); nil when unreadable.
func (f *Federation) Heartbeat(t testing.TB, supervisor string) *coordinationv1.Lease {
	t.Helper()
	return f.lease(t, supervisor, federationv1alpha1.ManagerLease)
}

// lease reads a Lease of the federation's namespace in a member; nil when unreadable.
func (f *Federation) lease(t testing.TB, member, name string) *coordinationv1.Lease {
	t.Helper()
	cs := kubernetes.NewForConfigOrDie(f.c.Config(t, member))
	// Clean-ups wait for leaders too, after t.Context() is cancelled.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 2*time.Second)
	defer cancel()
	l, err := cs.CoordinationV1().Leases(federationv1alpha1.SystemNamespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return l
}

func leaseHolder(l *coordinationv1.Lease) string { return ptr.Deref(l.Spec.HolderIdentity, "") }

// Leaders returns the holder of every member's Lease.
func (f *Federation) Leaders(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range f.Members {
		out[m], _ = f.Lease(t, m)
	}
	return out
}

// WaitAllLed waits until every member's Lease is held by one of the given
// supervisors (any supervisor when none given) and returns the leaders.
func (f *Federation) WaitAllLed(t testing.TB, timeout time.Duration, by ...string) map[string]string {
	t.Helper()
	allowed := map[string]bool{}
	for _, s := range by {
		allowed[s] = true
	}
	var leaders map[string]string
	Eventually(t, timeout, func() error {
		leaders = f.Leaders(t)
		for m, l := range leaders {
			if l == "" || (len(allowed) > 0 && !allowed[l]) {
				return fmt.Errorf("member %s led by %q; leaders %v", m, l, leaders)
			}
		}
		return nil
	})
	return leaders
}

// Signal sends sig to a supervisor's federation manager (SIGKILL, SIGSTOP, SIGCONT, SIGTERM).
func (f *Federation) Signal(t testing.TB, supervisor string, sig syscall.Signal) {
	t.Helper()
	pid := f.c.Sandbox.ManagerPid(supervisor)
	if pid == 0 {
		t.Fatalf("no federation manager runs in %s", supervisor)
	}
	if err := syscall.Kill(pid, sig); err != nil {
		t.Fatalf("signalling the manager of %s: %v", supervisor, err)
	}
	if sig == syscall.SIGKILL {
		Eventually(t, 5*time.Second, func() error {
			if sandbox.Alive(pid) {
				return fmt.Errorf("manager %d still alive", pid)
			}
			return nil
		})
	}
}

// Restart starts a supervisor's federation manager again.
func (f *Federation) Restart(t testing.TB, supervisor string) {
	t.Helper()
	if _, err := f.c.Sandbox.StartManager(supervisor, f.binary, f.args...); err != nil {
		t.Fatal(err)
	}
	f.started = time.Now()
}

// WaitSettled waits until the federation's balancing is over and returns
// the leaders: every member led, the managers up for longer than the
// hand-over hold-down (a preferred supervisor asks for its members only
// then), no hand-over asked for on any Lease, and the same leaders on two
// reads two retry periods apart. A test that compares leaders before and
// after a fault starts from here: a hand-over still to come is not a
// change caused by the fault.
func (f *Federation) WaitSettled(t testing.TB, timeout time.Duration) map[string]string {
	t.Helper()
	cfg := election.DefaultConfig()
	if wait := time.Until(f.started.Add(cfg.HandoverHoldDown + 2*cfg.RetryPeriod)); wait > 0 {
		time.Sleep(wait)
	}
	var leaders map[string]string
	Eventually(t, timeout, func() error {
		first := f.WaitAllLed(t, timeout)
		for _, m := range f.Members {
			if to := f.handoverAsked(t, m); to != "" {
				return fmt.Errorf("member %s: a hand-over to %s is asked for", m, to)
			}
		}
		time.Sleep(2 * cfg.RetryPeriod)
		leaders = f.Leaders(t)
		if !maps.Equal(first, leaders) {
			return fmt.Errorf("leaders moved from %v to %v", first, leaders)
		}
		return nil
	})
	return leaders
}

// handoverAsked is the supervisor a member's Lease asks a hand-over to, "" when none.
func (f *Federation) handoverAsked(t testing.TB, member string) string {
	t.Helper()
	if l := f.leaderLease(t, member); l != nil {
		return l.Annotations[federationv1alpha1.AnnotationHandoverTo]
	}
	return ""
}

// ManagerPid is the pid of a supervisor's manager, 0 when none runs.
func (f *Federation) ManagerPid(supervisor string) int { return f.c.Sandbox.ManagerPid(supervisor) }

// Count returns how many members each supervisor leads.
func Count(leaders map[string]string) map[string]int {
	out := map[string]int{}
	for _, l := range leaders {
		out[l]++
	}
	return out
}

// ManagerLogNoise are the lines of a manager's log that LogManagersOnFailure
// leaves out: reflectors' retries while a member is cut off, the trackers'
// member states.
var ManagerLogNoise = []string{"Failed to watch", "Member states changed"}

// LogManagersOnFailure logs the end of every supervisor's manager log when t fails.
func (f *Federation) LogManagersOnFailure(t testing.TB) {
	t.Helper()
	files := map[string]string{}
	for _, s := range f.Supervisors {
		files["the federation manager of "+s] = f.c.Sandbox.ManagerLog(s)
	}
	LogTailsOnFailure(t, files, 60, ManagerLogNoise...)
}
