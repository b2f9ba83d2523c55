package outage

import (
	"context"
	"time"

	"k8s.io/client-go/rest"
)

// Readyz probes an API server's /readyz through c (e.g. a clientset's
// Discovery().RESTClient()).
func Readyz(c rest.Interface) func(context.Context) error {
	return func(ctx context.Context) error {
		return c.Get().AbsPath("/readyz").Do(ctx).Error()
	}
}

// WaitForRecovery runs probe every second (each with a 2 s deadline) and
// returns how long the outage was when the server answers after one of at
// least RefreshAfter; false when ctx ends first.
func WaitForRecovery(ctx context.Context, probe func(context.Context) error) (time.Duration, bool) {
	var tracker Tracker
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return 0, false
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := probe(pctx)
		cancel()
		if ctx.Err() != nil {
			return 0, false
		}
		if tracker.Observe(time.Now(), err, RefreshAfter) {
			return tracker.Last(), true
		}
	}
}
