package tenancy

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/tenancy"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/infrastructure/pollstats"
)

// Soft tenancy: two replicas of the shared instance share four tenants,
// each account polled by its claim's holder only; one replica killed with
// SIGKILL loses its tenants to the other within the claims' duration and
// two rounds, nothing deleted, no two replicas polling one account at once,
// and a VM added after the take-over imported.
func TestSoftTenancyScaleOutAndKill(t *testing.T) {
	c := clusters.Client(t, "member-1")
	leases := clusters.Namespace(t, "member-1")
	cl, tenants := newTenants(t, c, "soft", 2, plain(4)...)
	selector := runLabel + "=soft"
	replicas := map[string]*replica{}
	for _, name := range []string{"r1", "r2"} {
		r := startReplica(t, leases, tenancy.DefaultInstance, name, selector)
		replicas[r.identity()] = r
	}

	// Every tenant claimed as the plan of both replicas says, two by each,
	// and imported. Until each replica has seen the other's heartbeat it
	// plans alone, so a split of two and two can be passing on the way
	// there: the wait is for the plan itself, after which nothing moves.
	names := make([]string, 0, len(tenants))
	for _, tn := range tenants {
		names = append(names, tn.ns)
	}
	want := map[string]string{}
	per := map[string]int{}
	for tn, r := range tenancy.Assign(names, []string{"r1", "r2"}) {
		want[tn] = replicaID(r)
		per[r]++
	}
	if len(want) != len(tenants) || per["r1"] != 2 || per["r2"] != 2 {
		t.Fatalf("the plan %v does not give each of the 2 replicas 2 of the %d tenants", want, len(tenants))
	}
	waitHolders(t, c, leases, want)
	held, err := holders(t.Context(), c, leases)
	if err != nil {
		t.Fatal(err)
	}
	waitImported(t, c, tenants...)
	t.Logf("claims: %v", held)

	// Each account polled by its holder alone, never by two at once.
	cl.emu.ResetPollStats()
	s := cl.waitWindows(t, 2, tenants...)
	for _, tn := range tenants {
		_, holder := tenancy.SplitHolder(held[tn.ns])
		if got := callers(s, tn); !slices.Equal(got, []string{holder}) {
			t.Errorf("tenant %s: account called by %v; want its claim's holder %s only", tn.ns, got, holder)
		}
	}
	if n := s.TotalOverlaps(); n != 0 {
		t.Errorf("%d overlaps of two replicas polling one account: %+v", n, overlapsOf(s))
	}
	if after, err := holders(t.Context(), c, leases); err != nil || !maps.Equal(after, held) {
		t.Fatalf("claims moved while nothing changed: %v, then %v (%v)", held, after, err)
	}
	if t.Failed() {
		return
	}

	// kill -9 one replica: the other takes its tenants.
	victim, survivor := replicas[replicaID("r1")], replicas[replicaID("r2")]
	want = map[string]string{}
	var victims []*tenant
	for _, tn := range tenants {
		want[tn.ns] = survivor.identity()
		if held[tn.ns] == victim.identity() {
			victims = append(victims, tn)
		}
	}
	watch := watchVMs(t, c, tenants...)
	cl.emu.ResetPollStats()
	killed := time.Now()
	victim.kill(t)
	took := waitHoldersEvery(t, c, leases, want, 50*time.Millisecond).Sub(killed)
	t.Logf("take-over after kill -9: %s (claims last %s, renewed every %s)", took.Round(10*time.Millisecond), leaseDuration, renewPeriod)
	if limit := leaseDuration + 2*renewPeriod; took > limit {
		t.Errorf("the survivor took the killed replica's tenants after %s; want at most the claims' duration and two rounds, %s", took, limit)
	}
	handover := cl.emu.PollStats()
	if n := handover.TotalOverlaps(); n != 0 {
		t.Errorf("%d overlaps during the take-over (a killed replica cannot poll): %+v", n, overlapsOf(handover))
	}

	// After the take-over: three polls of every account, all by the
	// survivor, no overlap.
	cl.emu.ResetPollStats()
	s = cl.waitWindows(t, 3, tenants...)
	for _, tn := range tenants {
		if got := callers(s, tn); !slices.Equal(got, []string{survivor.name}) {
			t.Errorf("tenant %s: account called by %v after the take-over; want %s only", tn.ns, got, survivor.name)
		}
	}
	if n := s.TotalOverlaps(); n != 0 {
		t.Errorf("%d overlaps after the take-over: %+v", n, overlapsOf(s))
	}

	// Nothing lost: a VM added to a taken-over tenant is imported.
	tn := victims[0]
	cl.addVM(t, tn, tn.vpc+"-added")
	tn.vms++
	waitImported(t, c, tn)
	watch.check(t)
}

// Hard tenancy beside soft tenancy, and a third instance selecting every
// tenant: it polls nothing, and the owners, the Namespaces' Events and its
// metrics say so.
func TestHardTenancyAndContention(t *testing.T) {
	c := clusters.Client(t, "member-1")
	leases := clusters.Namespace(t, "member-1")
	run := "hard"
	cl, tenants := newTenants(t, c, run, 1, map[string]string{tenancyv1alpha1.LabelController: "hard"}, nil, nil)
	hardT, shareds := tenants[0], tenants[1:]

	hard := startReplica(t, leases, "hard", "h1", tenancyv1alpha1.LabelController+"=hard,"+runLabel+"="+run)
	shared := startReplica(t, leases, tenancy.DefaultInstance, "s1", tenancy.DefaultSharedSelector+","+runLabel+"="+run)
	want := map[string]string{hardT.ns: hard.identity()}
	for _, tn := range shareds {
		want[tn.ns] = shared.identity()
	}
	waitHolders(t, c, leases, want)
	waitImported(t, c, tenants...)
	for _, tn := range tenants {
		waitExclusive(t, c, tn, metav1.ConditionTrue, cloudv1alpha1.AccountReasonExclusive, want[tn.ns])
	}
	s := cl.waitWindows(t, 1, tenants...)
	for _, tn := range tenants {
		_, holder := tenancy.SplitHolder(want[tn.ns])
		if got := callers(s, tn); !slices.Equal(got, []string{holder}) {
			t.Errorf("tenant %s: account called by %v; want %s only", tn.ns, got, holder)
		}
	}

	// A third instance selecting every tenant of the test, as one without
	// a selector would.
	cl.emu.ResetPollStats()
	rogue := startReplica(t, leases, "rogue", "rogue-0", runLabel+"="+run)
	for _, tn := range tenants {
		cond := waitExclusive(t, c, tn, metav1.ConditionFalse, cloudv1alpha1.AccountReasonContended, "rogue", want[tn.ns])
		t.Logf("tenant %s: %s", tn.ns, cond.Message)
	}
	for _, tn := range tenants {
		waitEvent(t, c, tn.ns, "TenantClaimedByOtherController", "rogue")
	}
	framework.Eventually(t, timeout, func() error {
		n, err := rogue.metric("antreaplus_tenancy_contended_tenants", `instance="rogue"`)
		if err != nil {
			return err
		}
		if n != float64(len(tenants)) {
			return fmt.Errorf("antreaplus_tenancy_contended_tenants of rogue is %v; want %d", n, len(tenants))
		}
		return nil
	})
	if n, err := rogue.metric("antreaplus_tenancy_owned_tenants", `instance="rogue"`); err != nil || n != 0 {
		t.Errorf("antreaplus_tenancy_owned_tenants of rogue is %v (%v); want 0", n, err)
	}
	// Since rogue started, at least two polls of every account, none by
	// rogue; the claims where they were, no overlap.
	s = cl.waitWindows(t, 2, tenants...)
	for account, a := range s.Accounts {
		if a.Calls[rogue.name] > 0 {
			t.Errorf("account %s called %d times by rogue, which holds no claim", account, a.Calls[rogue.name])
		}
	}
	if n := s.TotalOverlaps(); n != 0 {
		t.Errorf("%d overlaps: %+v", n, overlapsOf(s))
	}
	if got, err := holders(t.Context(), c, leases); err != nil || !maps.Equal(got, want) {
		t.Errorf("claims %v (%v); want %v", got, err, want)
	}
}

// A tenant relabelled from the shared instance to a dedicated one: the
// shared instance releases it, the dedicated one acquires it, and its
// objects stay as they were: same UIDs, same resourceVersions.
func TestTenantMovedBetweenInstances(t *testing.T) {
	c := clusters.Client(t, "member-1")
	leases := clusters.Namespace(t, "member-1")
	run := "moved"
	cl, tenants := newTenants(t, c, run, 3, plain(2)...)
	moved, stays := tenants[0], tenants[1]
	hard := startReplica(t, leases, "hard", "h1", tenancyv1alpha1.LabelController+"=hard,"+runLabel+"="+run)
	shared := startReplica(t, leases, tenancy.DefaultInstance, "s1", tenancy.DefaultSharedSelector+","+runLabel+"="+run)
	waitHolders(t, c, leases, map[string]string{moved.ns: shared.identity(), stays.ns: shared.identity()})
	waitImported(t, c, tenants...)
	// Polled twice more after the import: what is stored is steady.
	cl.emu.ResetPollStats()
	cl.waitWindows(t, 2, moved)
	before := stored(t, c, moved.ns)

	watch := watchVMs(t, c, moved)
	cl.emu.ResetPollStats()
	ns := &corev1.Namespace{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: moved.ns}, ns); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(ns.DeepCopy())
	ns.Labels[tenancyv1alpha1.LabelController] = "hard"
	relabelled := time.Now()
	if err := c.Patch(t.Context(), ns, patch); err != nil {
		t.Fatal(err)
	}
	at := waitHoldersEvery(t, c, leases, map[string]string{moved.ns: hard.identity(), stays.ns: shared.identity()}, 50*time.Millisecond)
	t.Logf("tenant moved from %s to %s %s after the relabel", shared.identity(), hard.identity(), at.Sub(relabelled).Round(10*time.Millisecond))
	sharedCalls := cl.emu.PollStats().Accounts[moved.key].Calls[shared.name]

	// The new owner polls it twice; the old one no more.
	s := waitWindowsOf(t, cl, moved, hard.name, 2)
	if n := s.Accounts[moved.key].Calls[shared.name]; n != sharedCalls {
		t.Errorf("the shared instance called the moved tenant's account %d times after the dedicated one claimed it", n-sharedCalls)
	}
	// The one overlap a hand-over may show: the new owner's first calls
	// within the poll gap of the old owner's last, which ended before the
	// claim changed hands. The old owner calling while the new owner polls
	// is two owners at once.
	for _, o := range s.Accounts[moved.key].Overlaps {
		handover := o.Callers == [2]string{hard.name, shared.name} && !o.At.After(at.Add(pollGap+time.Second))
		if !handover {
			t.Errorf("overlap during the move: %s called %s at %s while %s's poll window was open (claim moved at %s)",
				o.Callers[0], o.Op, o.At.Format(time.StampMilli), o.Callers[1], at.Format(time.StampMilli))
		} else {
			t.Logf("hand-over: %s called %s at %s, within %s of %s's last call", o.Callers[0], o.Op, o.At.Format(time.StampMilli), pollGap, o.Callers[1])
		}
	}
	for account, a := range s.Accounts {
		if account != moved.key && a.OverlapCount > 0 {
			t.Errorf("%d overlaps on the account of a tenant that did not move: %v", a.OverlapCount, overlapsOf(s))
		}
	}
	waitExclusive(t, c, moved, metav1.ConditionTrue, cloudv1alpha1.AccountReasonExclusive, hard.identity())

	after := stored(t, c, moved.ns)
	if !maps.Equal(before, after) {
		for k, rv := range before {
			if after[k] != rv {
				t.Errorf("%s: resourceVersion %s before the move, %q after (written again or re-created)", k, rv, after[k])
			}
		}
		for k := range after {
			if _, ok := before[k]; !ok {
				t.Errorf("%s: created by the move", k)
			}
		}
	}
	t.Logf("%d VirtualMachines and NetworkInterfaces of the moved tenant: same UIDs and resourceVersions", len(after))
	watch.check(t)
}

// replicaID is the holderIdentity of a replica of the shared instance.
func replicaID(name string) string { return tenancy.HolderIdentity(tenancy.DefaultInstance, name) }

// waitHoldersEvery is waitHolders checking every interval, for a time
// measured.
func waitHoldersEvery(t *testing.T, c client.Client, leases string, want map[string]string, interval time.Duration) time.Time {
	t.Helper()
	var seen time.Time
	framework.EventuallyEvery(t, timeout, interval, func() error {
		got, err := holders(t.Context(), c, leases)
		if err != nil {
			return err
		}
		for tn, h := range want {
			if got[tn] != h {
				return fmt.Errorf("claims %v; want %v", got, want)
			}
		}
		seen = time.Now()
		return nil
	})
	return seen
}

// waitWindowsOf waits until caller polled tn's account in n windows since
// the stats were reset.
func waitWindowsOf(t *testing.T, cl *cloud, tn *tenant, caller string, n int) pollstats.Stats {
	t.Helper()
	var s pollstats.Stats
	framework.Eventually(t, timeout, func() error {
		s = cl.emu.PollStats()
		if got := s.Accounts[tn.key].Windows[caller]; got < n {
			return fmt.Errorf("account of tenant %s polled by %s in %d windows; want %d", tn.ns, caller, got, n)
		}
		return nil
	})
	return s
}

// waitEvent waits for a Warning Event of reason on the Namespace ns whose
// message names says.
func waitEvent(t *testing.T, c client.Client, ns, reason, says string) {
	t.Helper()
	framework.Eventually(t, timeout, func() error {
		var l corev1.EventList
		if err := c.List(t.Context(), &l, client.MatchingFields{"involvedObject.kind": "Namespace", "involvedObject.name": ns, "reason": reason}); err != nil {
			return err
		}
		for _, e := range l.Items {
			if e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, says) {
				return nil
			}
		}
		return fmt.Errorf("no Warning Event %s naming %q on Namespace %s (%d of that reason)", reason, says, ns, len(l.Items))
	})
}

// overlapsOf lists the overlaps kept, for a failure's message.
func overlapsOf(s pollstats.Stats) []string {
	var out []string
	for account, a := range s.Accounts {
		for _, o := range a.Overlaps {
			out = append(out, fmt.Sprintf("%s: %s called %s in %s at %s while %s polled it in %s", account, o.Callers[0], o.Op, o.Region,
				o.At.Format(time.StampMilli), o.Callers[1], o.OpenRegion))
		}
	}
	return out
}
