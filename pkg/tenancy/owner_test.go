package tenancy_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/tenancy"
	"antreaplus.io/antreaplus/test/framework"
)

var clusters *framework.Clusters

func TestMain(m *testing.M) { framework.Main(m, 1, &clusters) }

// clock is the replicas' shared clock: the tests move it, so that claims
// expire without waiting; every time in the Leases comes from it.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// world is one API server with tenants and the replicas that claim them.
type world struct {
	t       *testing.T
	c       client.Client
	leases  string
	clock   *clock
	tenants []string
}

func newWorld(t *testing.T, n int) *world {
	t.Helper()
	w := &world{t: t, c: clusters.Client(t, "member-1"), leases: clusters.Namespace(t, "member-1"),
		clock: &clock{now: time.Now().Truncate(time.Second)}}
	for i := range n {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: fmt.Sprintf("tenant-%d-", i), Labels: map[string]string{tenancyv1alpha1.LabelTenant: "true"}}}
		if err := w.c.Create(t.Context(), ns); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = w.c.Delete(context.WithoutCancel(t.Context()), ns) })
		w.tenants = append(w.tenants, ns.Name)
	}
	return w
}

func (w *world) replica(instance, replica, selector string, rec record.EventRecorder) *tenancy.Owner {
	w.t.Helper()
	sel, err := labels.Parse(selector)
	if err != nil {
		w.t.Fatal(err)
	}
	o, err := tenancy.New(tenancy.Options{
		Client: w.c, Reader: w.c, Namespaces: w.c, Namespace: w.leases,
		Instance: instance, Replica: replica, Selector: sel,
		Candidates:    func(context.Context) ([]string, error) { return w.tenants, nil },
		LeaseDuration: 15 * time.Second, RenewPeriod: 5 * time.Second,
		Recorder: rec, Log: testr.New(w.t), Now: w.clock.Now,
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return o
}

// rounds runs one round of every replica, in order.
func (w *world) rounds(replicas ...*tenancy.Owner) {
	w.t.Helper()
	for _, r := range replicas {
		if err := r.Round(w.t.Context()); err != nil {
			w.t.Fatalf("round of %s: %v", r.Identity(), err)
		}
	}
}

// holders maps each tenant to its claim's holder, as stored.
func (w *world) holders() map[string]string {
	w.t.Helper()
	var list coordinationv1.LeaseList
	if err := w.c.List(w.t.Context(), &list, client.InNamespace(w.leases), client.MatchingLabels{tenancyv1alpha1.LabelLease: tenancyv1alpha1.LeaseClaim}); err != nil {
		w.t.Fatal(err)
	}
	out := map[string]string{}
	for _, l := range list.Items {
		out[l.Labels[tenancyv1alpha1.LabelTenant]] = ptr.Deref(l.Spec.HolderIdentity, "")
	}
	return out
}

// owners maps each tenant to the replicas whose Gate says they own it:
// never more than one.
func (w *world) owners(replicas ...*tenancy.Owner) map[string][]string {
	out := map[string][]string{}
	for _, t := range w.tenants {
		for _, r := range replicas {
			if r.Owns(t) {
				out[t] = append(out[t], r.Identity())
			}
		}
	}
	return out
}

func (w *world) checkExclusive(replicas ...*tenancy.Owner) {
	w.t.Helper()
	for t, o := range w.owners(replicas...) {
		if len(o) > 1 {
			w.t.Fatalf("tenant %s owned by %v at once", t, o)
		}
	}
}

// TestReplicasShareTenantsAndTakeOver: two replicas split six tenants
// evenly; a third joins and takes its share, handed over without a gap;
// one is killed (stops renewing, releases nothing) and its tenants are
// taken once its claims expire, never owned twice on the way.
func TestReplicasShareTenantsAndTakeOver(t *testing.T) {
	w := newWorld(t, 6)
	r1, r2, r3 := w.replica("shared", "r1", "", nil), w.replica("shared", "r2", "", nil), w.replica("shared", "r3", "", nil)
	w.rounds(r1, r2)
	w.clock.Add(time.Second)
	w.rounds(r1, r2, r1, r2) // each sees the other's heartbeat and plans with it
	counts := func(rs ...*tenancy.Owner) map[string]int {
		c := map[string]int{}
		for _, o := range w.owners(rs...) {
			c[o[0]]++
		}
		return c
	}
	if c := counts(r1, r2); c["shared/r1"] != 3 || c["shared/r2"] != 3 {
		t.Fatalf("two replicas own %v of 6 tenants, want 3 each (holders %v)", c, w.holders())
	}
	w.checkExclusive(r1, r2)

	// r3 joins: r1 and r2 release what the new plan gives r3, r3 takes it.
	w.rounds(r3, r1, r2)
	w.checkExclusive(r1, r2, r3)
	w.rounds(r3, r1, r2) // the replicas planned for what was released take it
	w.checkExclusive(r1, r2, r3)
	if c := counts(r1, r2, r3); c["shared/r1"] != 2 || c["shared/r2"] != 2 || c["shared/r3"] != 2 {
		t.Fatalf("three replicas own %v of 6 tenants, want 2 each (holders %v)", c, w.holders())
	}
	if got := r1.Replicas(); !slices.Equal(got, []string{"r1", "r2", "r3"}) {
		t.Errorf("r1 sees replicas %v", got)
	}

	// r3 is killed: no release. Its claims stand until they expire; the
	// others take them then, and r3's Gate has said no well before.
	mine := []string{}
	for tn, o := range w.owners(r3) {
		if len(o) > 0 {
			mine = append(mine, tn)
		}
	}
	for step := 0; step < 20; step++ {
		w.clock.Add(time.Second)
		w.rounds(r1, r2)
		w.checkExclusive(r1, r2, r3)
	}
	if c := counts(r1, r2, r3); c["shared/r1"] != 3 || c["shared/r2"] != 3 || c["shared/r3"] != 0 {
		t.Fatalf("after r3's death own %v, want 3 each for r1, r2 (holders %v)", c, w.holders())
	}
	for _, tn := range mine {
		if h := w.holders()[tn]; h == "shared/r3" {
			t.Errorf("tenant %s still claimed by the dead replica", tn)
		}
	}
}

// TestTakeOverTime: the take-over of a killed replica's tenants happens
// between the claim's duration and one round after it.
func TestTakeOverTime(t *testing.T) {
	w := newWorld(t, 2)
	r1, r2 := w.replica("shared", "r1", "", nil), w.replica("shared", "r2", "", nil)
	w.rounds(r1, r2, r1, r2)
	var victim string
	for _, tn := range w.tenants {
		if r1.Owns(tn) {
			victim = tn
		}
	}
	if victim == "" {
		t.Fatalf("r1 owns nothing: %v", w.holders())
	}
	killed := w.clock.Now()
	for w.holders()[victim] != "shared/r2" {
		w.clock.Add(500 * time.Millisecond)
		w.rounds(r2)
		if w.clock.Now().Sub(killed) > time.Minute {
			t.Fatalf("not taken over in a minute: %v", w.holders())
		}
	}
	took := w.clock.Now().Sub(killed)
	if took < 15*time.Second || took > 16*time.Second {
		t.Errorf("taken over %s after the kill, want within [15s, 15s + one round]", took)
	}
	t.Logf("take-over after %s (claim duration 15s, rounds every 500ms)", took)
}

// TestOtherInstanceLeavesOwnedTenantAlone: a second instance whose
// selector picks an owned tenant does not touch it and says so (contender
// annotation, Warning event, owner's State); when the Namespace is
// relabelled for it, the first releases and the second takes it.
func TestOtherInstanceLeavesOwnedTenantAlone(t *testing.T) {
	w := newWorld(t, 2)
	shared := w.replica("shared", "s1", "", nil)
	rec := record.NewFakeRecorder(10)
	hard := w.replica("hard", "h1", "", rec)
	w.rounds(shared, hard)
	for _, tn := range w.tenants {
		if !shared.Owns(tn) || hard.Owns(tn) {
			t.Fatalf("tenant %s: shared owns %v, hard owns %v; want shared only", tn, shared.Owns(tn), hard.Owns(tn))
		}
		if h := hard.State(tn).Holder; h != "shared/s1" {
			t.Errorf("hard sees holder %q of %s", h, tn)
		}
	}
	select {
	case e := <-rec.Events:
		t.Logf("event: %s", e)
	default:
		t.Fatal("no event for the contended tenant")
	}
	w.rounds(shared)
	if c := shared.State(w.tenants[0]).Contenders; !slices.Equal(c, []string{"hard"}) {
		t.Errorf("owner sees contenders %v, want [hard]", c)
	}

	// The tenant becomes hard's: shared's selector drops it, hard's picks it.
	ns := &corev1.Namespace{}
	if err := w.c.Get(t.Context(), client.ObjectKey{Name: w.tenants[0]}, ns); err != nil {
		t.Fatal(err)
	}
	ns.Labels[tenancyv1alpha1.LabelController] = "hard"
	if err := w.c.Update(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	shared = w.replica("shared", "s1", tenancy.DefaultSharedSelector, nil)
	hard = w.replica("hard", "h1", tenancyv1alpha1.LabelController+"=hard", rec)
	w.rounds(shared)
	if shared.Owns(w.tenants[0]) {
		t.Fatal("shared still owns the tenant it no longer selects")
	}
	w.rounds(hard)
	if !hard.Owns(w.tenants[0]) || hard.Owns(w.tenants[1]) {
		t.Fatalf("hard owns %v/%v, want only %s", hard.Owns(w.tenants[0]), hard.Owns(w.tenants[1]), w.tenants[0])
	}
	if c := hard.State(w.tenants[0]).Contenders; len(c) != 0 {
		t.Errorf("the new holder inherits contenders %v", c)
	}
}

// TestGateStopsWithoutRenewal: a replica cut off from the API server
// stops owning its tenants a fifth of the duration before others may take
// them.
func TestGateStopsWithoutRenewal(t *testing.T) {
	w := newWorld(t, 1)
	r1 := w.replica("shared", "r1", "", nil)
	w.rounds(r1)
	tn := w.tenants[0]
	if !r1.Owns(tn) {
		t.Fatal("not owned after a round")
	}
	w.clock.Add(11 * time.Second)
	if !r1.Owns(tn) {
		t.Error("not owned 11 s after the last renewal")
	}
	w.clock.Add(time.Second)
	if r1.Owns(tn) {
		t.Error("still owned 12 s after the last renewal of a 15 s claim")
	}
}

// TestReleaseWaitsForWorkBegun: a replica giving a tenant up starts no new
// work for it at once, keeps the claim while a poll begun is running, and
// releases it after; the next owner never works beside it.
func TestReleaseWaitsForWorkBegun(t *testing.T) {
	w := newWorld(t, 4)
	r1 := w.replica("shared", "r1", "", nil)
	w.rounds(r1)
	var busy string
	var done func()
	for _, tn := range w.tenants {
		if d, ok := r1.Begin(tn); ok && done == nil {
			busy, done = tn, d
		} else if ok {
			d()
		}
	}
	if done == nil {
		t.Fatal("r1 could begin work on no tenant")
	}
	// r2 joins; find a tenant the new plan moves to it, and hold work there.
	r2 := w.replica("shared", "r2", "", nil)
	w.rounds(r2)
	plan := tenancy.Assign(w.tenants, []string{"r1", "r2"})
	if plan[busy] != "r2" {
		done()
		for _, tn := range w.tenants {
			if plan[tn] == "r2" {
				busy = tn
			}
		}
		if d, ok := r1.Begin(busy); ok {
			done = d
		} else {
			t.Fatalf("r1 cannot begin work on %s", busy)
		}
	}
	w.clock.Add(6 * time.Second)
	w.rounds(r1, r2)
	if r1.Owns(busy) {
		t.Error("r1 still owns the tenant it gives up: new work would start")
	}
	if _, ok := r1.Begin(busy); ok {
		t.Error("r1 began new work on the tenant it gives up")
	}
	if h := w.holders()[busy]; h != "shared/r1" {
		t.Fatalf("claim of %s held by %q while r1's work runs, want shared/r1", busy, h)
	}
	if r2.Owns(busy) {
		t.Fatal("r2 owns the tenant while r1's work runs")
	}
	done()
	w.rounds(r1, r2)
	if !r2.Owns(busy) || w.holders()[busy] != "shared/r2" {
		t.Fatalf("after r1's work ended: r2 owns %v, holder %q", r2.Owns(busy), w.holders()[busy])
	}
}
