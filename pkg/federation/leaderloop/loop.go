package leaderloop

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"antreaplus.io/antreaplus/pkg/federation/manager"
)

// ErrFenced is returned by a write the election no longer allows: the
// reconcile that made it is counted as fenced and not retried.
var ErrFenced = errors.New("no longer the leader: write refused")

// Options tune the loop. A controller embeds them, set to its defaults.
type Options struct {
	// Workers reconcile keys in parallel, per led member.
	Workers int
	// Resync is how often every key is reconciled again.
	Resync time.Duration
	// Period is how often member states (synced, unreachable) are looked at.
	Period time.Duration
	// WriteQPS and WriteBurst limit the writes into one led member.
	WriteQPS   float32
	WriteBurst int
}

// Sources are the members the controller reads: a *sources.Tracker.
type Sources interface {
	// Refresh looks at the members again and tells whether one changed state.
	Refresh(ctx context.Context) bool
	// WaitForSources waits, at most timeout, until the members' caches are synced.
	WaitForSources(ctx context.Context, timeout time.Duration)
}

// Hooks are what the controller does in the loop.
type Hooks[K comparable] struct {
	// Doing is logged once the workers run ("Importing federated Services").
	Doing string
	// Start hooks the controller's event handlers on the led member and
	// waits until they are synced; an error ends Run.
	Start func(ctx context.Context) error
	// Sources are looked at every Period.
	Sources Sources
	// EnqueueAll adds every key to the queue: at start, every Resync, and
	// when a member changed state.
	EnqueueAll func(ctx context.Context)
	// Reconcile makes what one key stands for right in the led member.
	Reconcile func(ctx context.Context, k K) error
	// LogValues name a key in the log line of a failed reconcile.
	LogValues func(k K) []any
}

// Loop is a leader controller's loop in one led member.
type Loop[K comparable] struct {
	// Writer writes into the led member, within WriteQPS and WriteBurst.
	Writer client.Client
	// Queue holds the keys to reconcile.
	Queue workqueue.TypedRateLimitingInterface[K]
	// Log is the context's logger with the controller, the member and the term.
	Log logr.Logger
	// Metrics are the controller's part of the shared metrics: the loop
	// counts the reconciles, Write the writes.
	Metrics Metrics

	m    manager.Member
	opts Options
}

// New returns the loop of the controller called name in led member m.
func New[K comparable](ctx context.Context, name string, m manager.Member, opts Options) (*Loop[K], error) {
	cfg := rest.CopyConfig(m.Cluster.GetConfig())
	cfg.QPS, cfg.Burst, cfg.Timeout = opts.WriteQPS, opts.WriteBurst, 15*time.Second
	w, err := client.New(cfg, client.Options{Scheme: m.Cluster.GetScheme(), Mapper: m.Cluster.GetRESTMapper()})
	if err != nil {
		return nil, fmt.Errorf("client of member %s: %w", m.ClusterID, err)
	}
	return &Loop[K]{
		Writer:  w,
		Queue:   newQueue[K](name + "-" + m.ClusterID),
		Log:     log.FromContext(ctx).WithValues("controller", name, "member", m.ClusterID, "term", m.Term),
		Metrics: MetricsFor(name),
		m:       m,
		opts:    opts,
	}, nil
}

func newQueue[K comparable](name string) workqueue.TypedRateLimitingInterface[K] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[K](5*time.Millisecond, 30*time.Second),
		workqueue.TypedRateLimitingQueueConfig[K]{Name: name})
}
