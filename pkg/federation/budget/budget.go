package budget

import (
	"context"
	"sync"
	"time"
)

// Config sets a Budget.
type Config struct {
	// Limit is how many reconciles run at once; 0 means no limit (and no
	// right of way for renewals).
	Limit int
	// Floor is how many run at once while a renewal is late (at least 1).
	Floor int
	// LateAfter is how long a renewal is in flight before it is late.
	LateAfter time.Duration
}

// Admit tells whether one more reconcile may start, running already, while
// late renewals are in flight.
func Admit(cfg Config, running, late int) bool {
	if cfg.Limit <= 0 {
		return true
	}
	limit := cfg.Limit
	if late > 0 {
		limit = min(limit, max(cfg.Floor, 1))
	}
	return running < limit
}

// Budget counts the reconciles running and the renewals in flight of one
// supervisor. A nil *Budget admits everything.
type Budget struct {
	cfg Config

	mu      sync.Mutex
	running int
	late    int
	// changed is closed, and replaced, whenever a reconcile ends or a late
	// renewal does: what waits in Acquire looks again.
	changed chan struct{}
}

// New returns a budget set by cfg.
func New(cfg Config) *Budget {
	b := &Budget{cfg: cfg, changed: make(chan struct{})}
	limit.Set(float64(cfg.Limit))
	return b
}

// Acquire waits until a reconcile may start, or ctx ends (its error).
// Every successful Acquire must be followed by one Release.
func (b *Budget) Acquire(ctx context.Context) error {
	if b == nil {
		return nil
	}
	var since time.Time
	for {
		b.mu.Lock()
		if Admit(b.cfg, b.running, b.late) {
			b.running++
			running.Set(float64(b.running))
			b.mu.Unlock()
			if !since.IsZero() {
				waited.Observe(time.Since(since).Seconds())
			}
			return nil
		}
		ch := b.changed
		b.mu.Unlock()
		if since.IsZero() {
			since = time.Now()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}

// Release ends a reconcile Acquire admitted.
func (b *Budget) Release() {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.running--
	running.Set(float64(b.running))
	b.wake()
	b.mu.Unlock()
}

// Renewing tells that a renewal is being sent; done, called once it is
// answered or given up, tells it is over. While it is in flight for
// LateAfter or more, the budget admits at most Floor reconciles.
func (b *Budget) Renewing() (done func()) {
	if b == nil || b.cfg.Limit <= 0 {
		return func() {}
	}
	var once sync.Once
	var fired, over bool // under b.mu
	t := time.AfterFunc(b.cfg.LateAfter, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if over {
			return
		}
		fired = true
		b.late++
		lateRenewals.Set(float64(b.late))
		lateTotal.Inc()
	})
	return func() {
		once.Do(func() {
			t.Stop()
			b.mu.Lock()
			defer b.mu.Unlock()
			over = true
			if fired {
				b.late--
				lateRenewals.Set(float64(b.late))
				b.wake()
			}
		})
	}
}

// wake lets every waiting Acquire look again; b.mu is held.
func (b *Budget) wake() {
	close(b.changed)
	b.changed = make(chan struct{})
}
