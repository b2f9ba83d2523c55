package outage

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
)

// Generation is one run of what holds a component's informers.
type Generation struct {
	// N counts the generations from 0; every later one follows an outage.
	N int
	// Outage is how long the API server did not answer before this
	// generation started; 0 for the first.
	Outage time.Duration
}

// Renewer runs a component's informers one generation at a time and starts
// a new generation each time the component's API server answers again
// after an outage of at least Min.
type Renewer struct {
	// Component names the component in the logs and in the renewals counter.
	Component string
	// Probe asks the API server once; nil means it answered.
	Probe func(context.Context) error
	// Period is the time between probes (1 s when zero); a probe gets twice
	// as long to answer.
	Period time.Duration
	// Min is the shortest outage that renews the informers (RefreshAfter
	// when zero).
	Min time.Duration
	// Log gets one line per renewal (none when zero).
	Log logr.Logger
	// Broken, when set, tells whether the running generation's informers
	// were cut off at or after since: the server could not be reached
	// (Unreachable: a reflector then retries its watch with growing waits
	// and reports nothing) or a list or watch failed. An outage then
	// renews the generation only if so: probes that failed because the
	// server was slow, while the informers' watches held, leave them be
	// (a fresh generation would list everything again, into a server
	// already behind: at 30 members on two cores, each slow spell of a
	// member's API server was followed by a full re-list of it, which made
	// the next one). Nil: every outage of at least Min renews.
	Broken func(since time.Time) bool
}

// Run runs generation 0 of start at once and replaces it with the next
// after every outage of at least Min: it cancels the current generation's
// context, waits for start to return, and calls start again. Run returns
// when ctx ends, once the current generation has returned (with its error,
// if it failed otherwise than by being cancelled), or as soon as a
// generation returns on its own while its context is live: with its error,
// or with an error saying so when it returned nil.
func (r Renewer) Run(ctx context.Context, start func(context.Context, Generation) error) error {
	r = r.withDefaults()
	var tracker Tracker
	ticker := time.NewTicker(r.Period)
	defer ticker.Stop()
	g := Generation{}
	for {
		stop, done := r.launch(ctx, start, g)
		renewed := false
		for !renewed {
			select {
			case err := <-done:
				stop()
				return r.ended(ctx, g, err)
			case <-ctx.Done():
				stop()
				return r.ended(ctx, g, <-done)
			case <-ticker.C:
				now := time.Now()
				if !tracker.Observe(now, r.probe(ctx), r.Min) {
					continue
				}
				// The informers may have failed a probe period before
				// the first probe that did.
				since := now.Add(-tracker.Last() - r.Period)
				if renewed = r.Broken == nil || r.Broken(since); !renewed {
					kept.WithLabelValues(r.Component).Inc()
					r.Log.V(1).Info("API server answers again after a slow spell; its watches held: informers kept",
						"component", r.Component, "outage", tracker.Last().Round(time.Millisecond), "generation", g.N)
				}
			}
		}
		stop()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			r.Log.Error(err, "Generation failed as it was replaced", "component", r.Component, "generation", g.N)
		}
		g = Generation{N: g.N + 1, Outage: tracker.Last()}
		renewals.WithLabelValues(r.Component).Inc()
		r.Log.Info("API server answers again after an outage: starting fresh informers",
			"component", r.Component, "outage", g.Outage.Round(time.Millisecond), "generation", g.N)
	}
}

func (r Renewer) withDefaults() Renewer {
	if r.Period <= 0 {
		r.Period = time.Second
	}
	if r.Min <= 0 {
		r.Min = RefreshAfter
	}
	return r
}

// launch starts generation g; stop cancels it and done receives what it returned.
func (r Renewer) launch(ctx context.Context, start func(context.Context, Generation) error, g Generation) (stop context.CancelFunc, done <-chan error) {
	gctx, cancel := context.WithCancel(ctx)
	ch := make(chan error, 1)
	go func() { ch <- start(gctx, g) }()
	return cancel, ch
}

// probe asks the API server once, within twice the probe period.
func (r Renewer) probe(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, 2*r.Period)
	defer cancel()
	return r.Probe(pctx)
}

// ended is what Run returns when generation g returned err: nothing when ctx
// ended and g stopped because of it, else why g ended.
func (r Renewer) ended(ctx context.Context, g Generation, err error) error {
	if ctx.Err() != nil {
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	if err == nil {
		return fmt.Errorf("generation %d of %s returned before it was stopped", g.N, r.Component)
	}
	return fmt.Errorf("generation %d of %s: %w", g.N, r.Component, err)
}
