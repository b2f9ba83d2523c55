package leaderloop

import (
	"context"
	"errors"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// Run starts the controller, then reconciles the keys of the queue until
// ctx ends; it returns once every worker has stopped. The queue is shut
// down when Run returns.
func (l *Loop[K]) Run(ctx context.Context, h Hooks[K]) error {
	defer l.Queue.ShutDown()
	ctx = log.IntoContext(ctx, l.Log)
	if err := h.Start(ctx); err != nil {
		return err
	}
	h.Sources.Refresh(ctx)
	h.Sources.WaitForSources(ctx, 5*time.Second)
	resumes := l.m.Fence.Resumes()
	h.EnqueueAll(ctx)
	var wg sync.WaitGroup
	for range l.opts.Workers {
		wg.Go(func() {
			for l.processNext(ctx, h) {
			}
		})
	}
	l.Log.Info(h.Doing)
	tick := time.NewTicker(l.opts.Period)
	resync := time.NewTicker(l.opts.Resync)
	defer tick.Stop()
	defer resync.Stop()
	for {
		select {
		case <-ctx.Done():
			l.Queue.ShutDown()
			wg.Wait()
			return nil
		case <-tick.C:
			// A renewal that came late closed the Fence for a while, and
			// the writes it refused were not retried: everything again.
			r := l.m.Fence.Resumes()
			if h.Sources.Refresh(ctx) || r != resumes {
				h.EnqueueAll(ctx)
			}
			resumes = r
		case <-resync.C:
			h.EnqueueAll(ctx)
		}
	}
}

// processNext reconciles one key of the queue; false once the queue is shut down.
func (l *Loop[K]) processNext(ctx context.Context, h Hooks[K]) bool {
	k, shutdown := l.Queue.Get()
	if shutdown {
		return false
	}
	defer l.Queue.Done(k)
	// The supervisor's budget, shared with every member it leads: a key
	// waits here while as many reconciles run, or a renewal is late.
	if err := l.m.Budget.Acquire(ctx); err != nil {
		l.Queue.Forget(k)
		return true
	}
	defer l.m.Budget.Release()
	start := time.Now()
	err := h.Reconcile(ctx, k)
	l.Metrics.ReconcileSeconds.WithLabelValues(l.m.ClusterID).Observe(time.Since(start).Seconds())
	switch {
	case err == nil:
		l.Metrics.Reconciles.WithLabelValues(l.m.ClusterID, "ok").Inc()
		l.Queue.Forget(k)
	case errors.Is(err, ErrFenced) || ctx.Err() != nil:
		l.Metrics.Reconciles.WithLabelValues(l.m.ClusterID, "fenced").Inc()
		l.Queue.Forget(k)
	default:
		l.Metrics.Reconciles.WithLabelValues(l.m.ClusterID, "error").Inc()
		// A write based on a stale cache fails with a conflict: routine, retried on fresh data.
		logger := l.Log
		if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
			logger = logger.V(1)
		}
		kv := append(h.LogValues(k), "retries", l.Queue.NumRequeues(k), "err", err)
		logger.Info("Reconcile failed, retrying", kv...)
		l.Queue.AddRateLimited(k)
	}
	return true
}
