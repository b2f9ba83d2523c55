package manager

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// failingTwice fails its first two runs, as a controller whose informers
// start while the member's API server does not serve its CRDs yet, then
// runs until its context ends.
type failingTwice struct{ runs atomic.Int32 }

func (*failingTwice) Name() string { return "failing-twice" }

func (f *failingTwice) Run(ctx context.Context, _ Member) error {
	if f.runs.Add(1) <= 2 {
		return errors.New("informer of *v1beta1.ServiceExport: no matches for multicluster.x-k8s.io/v1beta1")
	}
	<-ctx.Done()
	return nil
}

// steady runs until its context ends.
type steady struct{ runs atomic.Int32 }

func (*steady) Name() string { return "steady" }

func (s *steady) Run(ctx context.Context, _ Member) error {
	s.runs.Add(1)
	<-ctx.Done()
	return nil
}

// TestLeaderControllerRunAgainAfterAFailure: a leader controller that fails
// is run again after its back-off, the others untouched; none runs again
// once leadership ends.
func TestLeaderControllerRunAgainAfterAFailure(t *testing.T) {
	flaky, other := &failingTwice{}, &steady{}
	s := &session{m: &Manager{opts: Options{LeaderControllers: []LeaderController{flaky, other}}}}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.runLeaderControllers(ctx, Member{ClusterID: "member-3"})
	}()
	// 1 s, then 2 s of back-off.
	deadline := time.Now().Add(10 * time.Second)
	for flaky.runs.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := flaky.runs.Load(); got != 3 {
		t.Fatalf("the failing controller ran %d times, want 3 (twice failed, then running)", got)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the controllers did not return after leadership ended")
	}
	if flaky.runs.Load() != 3 || other.runs.Load() != 1 {
		t.Errorf("runs: failing %d, steady %d; want 3 and 1", flaky.runs.Load(), other.runs.Load())
	}
}
