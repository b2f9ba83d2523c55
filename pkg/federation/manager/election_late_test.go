package manager

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/utils/ptr"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/election"
	"antreaplus.io/antreaplus/test/framework"
)

// The election when renewals come late: a leader kept through a stalled
// API server, fenced meanwhile, and not taken over by an observer for whom
// the member is slow too.

// stalledLeases answers at once, except while stalled: a request sent
// before the stall ends waits for it (or for its context) before it reaches
// the API server, as on an API server starved for a few seconds.
type stalledLeases struct {
	next  election.Leases
	until atomic.Int64 // unix nanoseconds
}

func (s *stalledLeases) stall(d time.Duration) { s.until.Store(time.Now().Add(d).UnixNano()) }

func (s *stalledLeases) wait(ctx context.Context) error {
	d := time.Until(time.Unix(0, s.until.Load()))
	if d <= 0 {
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func (s *stalledLeases) Get(ctx context.Context) (*coordinationv1.Lease, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.next.Get(ctx)
}

func (s *stalledLeases) Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.next.Create(ctx, l)
}

func (s *stalledLeases) Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.next.Update(ctx, l)
}

// ledStalled is a leader of member, alone, whose Lease requests stall
// for 7 s once it leads: longer than its renew deadline (4 s), shorter than
// its give-up time (12 s).
func ledStalled(t *testing.T, me string) (coordinationv1client.LeaseInterface, *election.Elector, *fencedLead, *stalledLeases) {
	t.Helper()
	api := freshLeases(t)
	leases := &stalledLeases{next: &probingLeases{c: api, name: federationv1alpha1.LeaderLease, probe: &probe{}}}
	e, l := newFencedElector(election.DefaultConfig(), me, leases)
	runElector(t, e)
	framework.Eventually(t, 20*time.Second, func() error {
		if l.started.Load() == 0 {
			return fmt.Errorf("not leading yet")
		}
		return nil
	})
	leases.stall(7 * time.Second)
	return api, e, l, leases
}

// TestLeaderKeepsItsMemberThroughALateRenewal: the member's API server
// answers nothing for 7 s. The leader's Fence closes at its renew deadline
// (no write while another might take the member), but its leadership is
// kept: once a renewal succeeds, the Fence opens again in the same term,
// the controllers never stopped, and Fence.Resumes tells them to reconcile
// again. (It stepped down at the renew deadline and led again at the next
// renewal: a change of leader, every controller restarted, on each such
// stall of a starved machine.)
func TestLeaderKeepsItsMemberThroughALateRenewal(t *testing.T) {
	const me = "supervisor-stalled"
	_, e, l, _ := ledStalled(t, me)
	term := e.Status().Term
	framework.Eventually(t, 10*time.Second, func() error {
		if !l.fenceClosed.Load() {
			return fmt.Errorf("the Fence has not closed yet")
		}
		return nil
	})
	framework.Eventually(t, 15*time.Second, func() error {
		if _, ok := e.Fence().Check(); !ok {
			return fmt.Errorf("the Fence is still closed")
		}
		return nil
	})
	if got := e.Fence().Resumes(); got != 1 {
		t.Errorf("Fence.Resumes() = %d after one late renewal; want 1", got)
	}
	if l.started.Load() != 1 || l.stopped.Load() != 0 {
		t.Errorf("through a 7 s stall: led %d times, stepped down %d times; want once, never", l.started.Load(), l.stopped.Load())
	}
	if st := e.Status(); !st.Leading || st.Holder != me || st.Term != term {
		t.Errorf("Status() = %+v after the stall; want leading, holder %s, term %d still", st, me, term)
	}
}

// TestLeaderStepsDownWhenTakenWhileFenced: while the leader's requests
// stall, another supervisor takes the Lease. The leader's late renewal
// conflicts (the Lease has another resourceVersion) and it steps down; it
// never writes in the other's term.
func TestLeaderStepsDownWhenTakenWhileFenced(t *testing.T) {
	const me = "supervisor-stalled"
	api, e, l, _ := ledStalled(t, me)
	framework.Eventually(t, 10*time.Second, func() error {
		if !l.fenceClosed.Load() {
			return fmt.Errorf("the Fence has not closed yet")
		}
		return nil
	})
	lease, err := api.Get(t.Context(), federationv1alpha1.LeaderLease, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lease.Spec.HolderIdentity = ptr.To("supervisor-other")
	lease.Spec.LeaseTransitions = ptr.To(ptr.Deref(lease.Spec.LeaseTransitions, 0) + 1)
	if _, err := api.Update(t.Context(), lease, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 15*time.Second, func() error {
		if l.stopped.Load() == 0 {
			return fmt.Errorf("still leading (Status %+v)", e.Status())
		}
		return nil
	})
	if _, ok := e.Fence().Check(); ok || e.Status().Leading {
		t.Errorf("after the Lease was taken: Fence open %t, Status %+v; want closed, not leading", ok, e.Status())
	}
	got, err := api.Get(t.Context(), federationv1alpha1.LeaderLease, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := ptr.Deref(got.Spec.HolderIdentity, ""); h != "supervisor-other" {
		t.Errorf("the Lease is held by %q; want the supervisor that took it, supervisor-other", h)
	}
}

// beside is a federation of two live supervisors in which holder is preferred.
type beside struct{ holder string }

func (b beside) Rank(string) (int, string) { return 1, b.holder }
func (b beside) Alive(string) bool         { return true }

// TestNoTakeOverOfASlowMembersLiveLeader: the leader's requests stall for
// 10 s, past the lease duration (6 s); another supervisor, alive, whose own
// reads of the member take 1.2 s (the member's API server slow for it
// too), does not take the Lease: it waits for the holder's give-up time
// (12 s), and the holder's renewal after the stall keeps the member in the
// same term. (At the lease duration it took it: a change of leader onto
// the same slow API server.)
func TestNoTakeOverOfASlowMembersLiveLeader(t *testing.T) {
	const me = "supervisor-stalled"
	api, e, l, stalled := ledStalled(t, me)
	stalled.stall(10 * time.Second)
	term := e.Status().Term
	slowReads := &slowLeases{next: &probingLeases{c: api, name: federationv1alpha1.LeaderLease, probe: &probe{}}, delay: 1200 * time.Millisecond}
	other := election.New(election.DefaultConfig(), "supervisor-other", member, slowReads, beside{holder: me},
		func(ctx context.Context, _ int32) { <-ctx.Done() })
	runElector(t, other)
	time.Sleep(13 * time.Second)
	if st := other.Status(); st.Leading {
		t.Fatalf("the other supervisor took the member of a live leader on a slow API server: %+v", st)
	}
	framework.Eventually(t, 5*time.Second, func() error {
		if _, ok := e.Fence().Check(); !ok {
			return fmt.Errorf("the leader's Fence is still closed")
		}
		return nil
	})
	if st := e.Status(); !st.Leading || st.Term != term || l.stopped.Load() != 0 {
		t.Errorf("after the stall: %+v, stepped down %d times; want leading in term %d, never stepped down", st, l.stopped.Load(), term)
	}
}
