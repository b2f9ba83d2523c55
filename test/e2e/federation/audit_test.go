package federation

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// writeAudit watches every member's ClusterMembership and records each
// status the leaders write, to prove no deposed leader wrote: within a
// member, terms never go back and one term has one leader.
type writeAudit struct {
	mu       sync.Mutex
	writes   map[string][]write
	cancel   context.CancelFunc
	finished sync.WaitGroup
}

type write struct {
	leader string
	term   int32
}

func startAudit(t *testing.T, members []string) *writeAudit {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	a := &writeAudit{writes: map[string][]write{}, cancel: cancel}
	for _, m := range members {
		cl, err := client.NewWithWatch(clusters.Config(t, m), client.Options{Scheme: clusters.Client(t, m).Scheme()})
		if err != nil {
			t.Fatal(err)
		}
		w, err := cl.Watch(ctx, &federationv1alpha1.ClusterMembershipList{})
		if err != nil {
			t.Fatalf("watching the membership of %s: %v", m, err)
		}
		a.finished.Add(1)
		go func() {
			defer a.finished.Done()
			defer w.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case ev, ok := <-w.ResultChan():
					if !ok {
						return
					}
					cm, isCM := ev.Object.(*federationv1alpha1.ClusterMembership)
					if !isCM || ev.Type == watch.Deleted || cm.Status.Leader == "" {
						continue
					}
					a.record(m, write{cm.Status.Leader, cm.Status.LeaderTerm})
				}
			}
		}()
	}
	t.Cleanup(a.stop)
	return a
}

func (a *writeAudit) record(member string, w write) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ws := a.writes[member]
	if len(ws) > 0 && ws[len(ws)-1] == w {
		return
	}
	a.writes[member] = append(ws, w)
}

func (a *writeAudit) stop() {
	a.cancel()
	a.finished.Wait()
}

// deposedWrites counts writes whose term is older than one already seen,
// or whose term was already written by another leader.
func (a *writeAudit) deposedWrites() (int, []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	var details []string
	for member, ws := range a.writes {
		maxTerm := int32(-1)
		leaderOf := map[int32]string{}
		for _, w := range ws {
			if other, ok := leaderOf[w.term]; (ok && other != w.leader) || w.term < maxTerm {
				n++
				details = append(details, fmt.Sprintf("%s: %s wrote term %d after term %d", member, w.leader, w.term, maxTerm))
			}
			leaderOf[w.term] = w.leader
			maxTerm = max(maxTerm, w.term)
		}
	}
	return n, details
}

// String lists every member's sequence of (leader, term) writes.
func (a *writeAudit) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return fmt.Sprint(a.writes)
}
