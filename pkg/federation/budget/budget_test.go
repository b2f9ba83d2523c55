package budget

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestAdmit(t *testing.T) {
	cfg := Config{Limit: 16, Floor: 2, LateAfter: time.Second}
	for _, tc := range []struct {
		name          string
		cfg           Config
		running, late int
		want          bool
	}{
		{"below the limit", cfg, 15, 0, true},
		{"at the limit", cfg, 16, 0, false},
		{"a late renewal: below the floor", cfg, 1, 1, true},
		{"a late renewal: at the floor", cfg, 2, 1, false},
		{"a late renewal: far above the floor", cfg, 12, 3, false},
		{"no limit", Config{}, 1000, 5, true},
		{"a floor of 0 is 1", Config{Limit: 4, LateAfter: time.Second}, 0, 1, true},
		{"a floor of 0 is 1, at it", Config{Limit: 4, LateAfter: time.Second}, 1, 1, false},
		{"a floor above the limit is the limit", Config{Limit: 2, Floor: 8}, 2, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Admit(tc.cfg, tc.running, tc.late); got != tc.want {
				t.Errorf("Admit(%+v, running %d, late %d) = %v, want %v", tc.cfg, tc.running, tc.late, got, tc.want)
			}
		})
	}
}

// TestLimitHolds runs many reconciles through a budget and checks that no
// more than Limit ran at once, and that every one ran.
func TestLimitHolds(t *testing.T) {
	b := New(Config{Limit: 3, Floor: 1, LateAfter: time.Second})
	var now, peak, done atomic.Int32
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if err := b.Acquire(t.Context()); err != nil {
				t.Error(err)
				return
			}
			n := now.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(time.Millisecond)
			now.Add(-1)
			done.Add(1)
			b.Release()
		})
	}
	wg.Wait()
	if peak.Load() > 3 {
		t.Errorf("%d reconciles ran at once, limit 3", peak.Load())
	}
	if done.Load() != 50 {
		t.Errorf("%d of 50 reconciles ran", done.Load())
	}
}

// TestLateRenewalNarrowsToTheFloor: while a renewal is late, a reconcile
// beyond the floor waits; it starts once the renewal is answered.
func TestLateRenewalNarrowsToTheFloor(t *testing.T) {
	b := New(Config{Limit: 4, Floor: 1, LateAfter: 20 * time.Millisecond})
	ctx := t.Context()
	if err := b.Acquire(ctx); err != nil { // one running
		t.Fatal(err)
	}
	renewed := b.Renewing()
	waitFor(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return b.late == 1 })

	started := make(chan struct{})
	go func() {
		if err := b.Acquire(ctx); err != nil {
			t.Error(err)
		}
		close(started)
	}()
	select {
	case <-started:
		t.Fatal("a second reconcile started while a renewal was late and one ran (floor 1)")
	case <-time.After(100 * time.Millisecond):
	}
	renewed()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the reconcile did not start once the renewal was answered")
	}
	renewed() // a second call is nothing
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.late != 0 || b.running != 2 {
		t.Errorf("late %d running %d, want 0 and 2", b.late, b.running)
	}
}

// TestQuickRenewalIsNeverLate: a renewal answered before LateAfter never
// narrows the budget, even once its timer's time has come.
func TestQuickRenewalIsNeverLate(t *testing.T) {
	b := New(Config{Limit: 1, Floor: 1, LateAfter: 10 * time.Millisecond})
	b.Renewing()()
	time.Sleep(50 * time.Millisecond)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.late != 0 {
		t.Errorf("late = %d after a quick renewal", b.late)
	}
}

func TestAcquireEndsWithItsContext(t *testing.T) {
	b := New(Config{Limit: 1, Floor: 1, LateAfter: time.Second})
	if err := b.Acquire(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if err := b.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Acquire over the limit = %v, want the context's deadline", err)
	}
	b.Release()
	if err := b.Acquire(t.Context()); err != nil {
		t.Errorf("Acquire after a release: %v", err)
	}
}

func TestNilAndUnlimitedAdmitEverything(t *testing.T) {
	var nb *Budget
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // nothing may wait
	for name, b := range map[string]*Budget{"nil": nb, "no limit": New(Config{})} {
		for range 100 {
			if err := b.Acquire(ctx); err != nil {
				t.Fatalf("%s budget refused a reconcile: %v", name, err)
			}
		}
		b.Renewing()()
		for range 100 {
			b.Release()
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}
