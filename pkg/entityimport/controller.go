package entityimport

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// errFenced is returned when the election no longer allows this manager to write.
var errFenced = errors.New("no longer the leader: write refused")

// Controller is the federated-entity leader controller.
type Controller struct {
	registry          client.Reader
	registryNamespace string
	// Workers reconcile keys in parallel, per led member.
	Workers int
	// Resync is how often every key is reconciled again.
	Resync time.Duration
	// Period is how often member states (synced, unreachable) are looked at.
	Period time.Duration
	// UnreachableHoldDown is how long a member must be seen continuously
	// marked unreachable (UnreachableSince) before its entities are withdrawn.
	UnreachableHoldDown time.Duration
	// WriteQPS and WriteBurst limit the writes into one led member.
	WriteQPS   float32
	WriteBurst int
}

// New returns the controller. registry reads the supervisor's own registry
// (MemberClusters in registryNamespace): the members' labels, and whether a
// member missing from the manager's view has left the federation.
func New(registry client.Reader, registryNamespace string) *Controller {
	registerMetrics()
	return &Controller{registry: registry, registryNamespace: registryNamespace, Workers: 4,
		Resync: time.Minute, Period: time.Second, UnreachableHoldDown: 5 * time.Second, WriteQPS: 200, WriteBurst: 400}
}

// Name implements manager.LeaderController.
func (c *Controller) Name() string { return "entityimport" }

// key is what one reconcile makes right: the RemoteEntities of one
// Namespace imported from one source member.
type key struct {
	Namespace string
	Source    string
}

// Run imports the entities the other members export into member m until ctx ends.
func (c *Controller) Run(ctx context.Context, m manager.Member) error {
	r, err := c.newRun(m)
	if err != nil {
		return err
	}
	ctx = log.IntoContext(ctx, log.FromContext(ctx).WithValues("controller", c.Name(), "member", m.ClusterID, "term", m.Term))
	r.log = log.FromContext(ctx)
	r.sources = r.newTracker()
	defer forgetMember(m.ClusterID)
	return r.run(ctx)
}

// run is the controller's state while it leads one member.
type run struct {
	c      *Controller
	m      manager.Member
	writer client.Client
	queue  workqueue.TypedRateLimitingInterface[key]
	log    logr.Logger
	// sources judges every other member: read, kept or withdrawn.
	sources *sources.Tracker
}

func (c *Controller) newRun(m manager.Member) (*run, error) {
	// Writes go through a client of their own: the member's shared client
	// is rate-limited for the whole session (elections, informers).
	cfg := rest.CopyConfig(m.Cluster.GetConfig())
	cfg.QPS, cfg.Burst, cfg.Timeout = c.WriteQPS, c.WriteBurst, 15*time.Second
	w, err := client.New(cfg, client.Options{Scheme: m.Cluster.GetScheme(), Mapper: m.Cluster.GetRESTMapper()})
	if err != nil {
		return nil, fmt.Errorf("client of member %s: %w", m.ClusterID, err)
	}
	q := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[key](5*time.Millisecond, 30*time.Second),
		workqueue.TypedRateLimitingQueueConfig[key]{Name: "entityimport-" + m.ClusterID})
	return &run{c: c, m: m, writer: w, queue: q}, nil
}

func (r *run) run(ctx context.Context) error {
	defer r.queue.ShutDown()
	defer r.sources.Close()
	if err := r.hookLed(ctx); err != nil {
		return err
	}
	r.sources.Refresh(ctx)
	r.sources.WaitForSources(ctx, 5*time.Second)
	r.enqueueAll(ctx)
	var wg sync.WaitGroup
	for range r.c.Workers {
		wg.Go(func() {
			for r.processNext(ctx) {
			}
		})
	}
	r.log.Info("Importing federated entities")
	tick := time.NewTicker(r.c.Period)
	resync := time.NewTicker(r.c.Resync)
	defer tick.Stop()
	defer resync.Stop()
	for {
		select {
		case <-ctx.Done():
			r.queue.ShutDown()
			wg.Wait()
			return nil
		case <-tick.C:
			if r.sources.Refresh(ctx) {
				r.enqueueAll(ctx)
			}
		case <-resync.C:
			r.enqueueAll(ctx)
		}
	}
}

func (r *run) processNext(ctx context.Context) bool {
	k, shutdown := r.queue.Get()
	if shutdown {
		return false
	}
	defer r.queue.Done(k)
	start := time.Now()
	err := r.reconcile(ctx, k)
	reconcileSeconds.WithLabelValues(r.m.ClusterID).Observe(time.Since(start).Seconds())
	switch {
	case err == nil:
		reconciles.WithLabelValues(r.m.ClusterID, "ok").Inc()
		r.queue.Forget(k)
	case errors.Is(err, errFenced) || ctx.Err() != nil:
		reconciles.WithLabelValues(r.m.ClusterID, "fenced").Inc()
		r.queue.Forget(k)
	default:
		reconciles.WithLabelValues(r.m.ClusterID, "error").Inc()
		// A write based on a stale cache fails with a conflict: routine, retried on fresh data.
		logger := r.log
		if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
			logger = logger.V(1)
		}
		logger.Info("Reconcile failed, retrying", "namespace", k.Namespace, "source", k.Source, "retries", r.queue.NumRequeues(k), "err", err)
		r.queue.AddRateLimited(k)
	}
	return true
}
