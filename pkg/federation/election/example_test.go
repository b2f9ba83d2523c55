package election_test

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/election"
)

// One round, as supervisor-2 sees it: the Lease of supervisor-1, dead,
// has not changed for longer than LeaseDuration, and supervisor-2 is
// ranked first; it takes the Lease. Two seconds earlier it waited.
func ExampleDecide() {
	cfg := election.DefaultConfig()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	o := election.Observation{
		Now: start.Add(7 * time.Second), Reachable: true,
		Lease:     &election.Lease{Holder: "supervisor-1", Transitions: 3},
		ChangedAt: start, Rank: 0, Preferred: "supervisor-2", PreferredAlive: true,
		UpSince: start.Add(-time.Hour),
	}
	fmt.Printf("%+v\n", election.Decide(cfg, "supervisor-2", o))
	o.Now = start.Add(5 * time.Second)
	fmt.Printf("%+v\n", election.Decide(cfg, "supervisor-2", o))
	// Output:
	// {StepDown:false Action:Acquire Target: Refused:}
	// {StepDown:false Action:None Target: Refused:}
}

// memberLeases is the leader Lease in a member, through the member's API.
type memberLeases struct {
	c coordinationv1client.LeaseInterface
}

func (l memberLeases) Get(ctx context.Context) (*coordinationv1.Lease, error) {
	return l.c.Get(ctx, federationv1alpha1.LeaderLease, metav1.GetOptions{})
}

func (l memberLeases) Create(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	return l.c.Create(ctx, lease, metav1.CreateOptions{})
}

func (l memberLeases) Update(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	return l.c.Update(ctx, lease, metav1.UpdateOptions{})
}

// alone is a federation of one live supervisor.
type alone struct{ me string }

func (a alone) Rank(string) (int, string) { return 0, a.me }
func (a alone) Alive(s string) bool       { return s == a.me }

// supervisor-1 takes part in the election of member-1 (memberCfg reaches
// member-1); while it leads, the member's controllers run and check the
// fence before each write. The federation manager wires it this way, its
// Peers ranking supervisors with package boundedload.
func ExampleElector() {
	run := func(ctx context.Context, memberCfg *rest.Config) error {
		cs, err := kubernetes.NewForConfig(memberCfg)
		if err != nil {
			return err
		}
		leases := memberLeases{c: cs.CoordinationV1().Leases(federationv1alpha1.SystemNamespace)}
		var e *election.Elector
		e = election.New(election.DefaultConfig(), "supervisor-1", "member-1", leases, alone{me: "supervisor-1"},
			func(ctx context.Context, term int32) {
				// The member's controllers, until ctx ends; before each write:
				if term, ok := e.Fence().Check(); ok {
					_ = term // write, stamped with the term
				}
				<-ctx.Done()
			})
		e.Run(ctx) // until ctx ends; then it releases the Lease
		return nil
	}
	_ = run
}
