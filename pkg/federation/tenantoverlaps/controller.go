package tenantoverlaps

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/leaderloop"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// Controller is the tenant-overlaps leader controller.
type Controller struct {
	registry          client.Reader
	registryNamespace string
	// Options tune the loop run for every led member: resync, period,
	// write rate. An expiring claim is waited for (nextExpiry), not polled.
	leaderloop.Options
	// UnreachableHoldDown is how long a member must be seen continuously
	// marked unreachable before its claims no longer count.
	UnreachableHoldDown time.Duration
	// Reread is how often the ConfigMap is read again when nothing else
	// asks for it.
	Reread time.Duration
}

// New returns the controller. registry reads the supervisor's own registry
// (MemberClusters in registryNamespace): whether a member missing from the
// manager's view has left the federation.
func New(registry client.Reader, registryNamespace string) *Controller {
	return &Controller{registry: registry, registryNamespace: registryNamespace,
		UnreachableHoldDown: 5 * time.Second, Reread: 30 * time.Second,
		Options: leaderloop.Options{Workers: 1, Resync: 30 * time.Second, Period: time.Second, WriteQPS: 20, WriteBurst: 40}}
}

// Name implements manager.LeaderController.
func (c *Controller) Name() string { return controllerName }

// controllerName labels the controller's metrics and log lines.
const controllerName = "tenantoverlaps"

// key is what one reconcile makes right: the led member's ConfigMap. There
// is only one.
type key struct{}

// Run keeps the overlaps ConfigMap of member m until ctx ends.
func (c *Controller) Run(ctx context.Context, m manager.Member) error {
	loop, err := leaderloop.New[key](ctx, c.Name(), m, c.Options)
	if err != nil {
		return err
	}
	r := &run{c: c, m: m, writer: loop.Writer, queue: loop.Queue, log: loop.Log, now: time.Now}
	r.sources = r.newTracker()
	defer forgetMember(m.ClusterID)
	defer r.sources.Close()
	return loop.Run(ctx, leaderloop.Hooks[key]{
		Doing: "Reporting the tenants claimed in other members", Start: r.hookLed, Sources: r.sources,
		EnqueueAll: func(context.Context) { r.queue.Add(key{}) }, Reconcile: r.reconcile,
		LogValues: func(key) []any { return []any{"configMap", tenancyv1alpha1.OverlapsConfigMap} },
	})
}

// run is the controller's state while it leads one member.
type run struct {
	c      *Controller
	m      manager.Member
	writer client.Client
	queue  workqueue.TypedRateLimitingInterface[key]
	log    logr.Logger
	now    func() time.Time
	// sources judges every member, the led one included: read, kept or withdrawn.
	sources *sources.Tracker
	// stored is the ConfigMap as last read or written; nil: read it.
	stored *stored
}

// stored is what the led member's ConfigMap held when last read or written.
type stored struct {
	// cm is the ConfigMap; nil when there is none.
	cm *corev1.ConfigMap
	// at is when it was read or written.
	at time.Time
}

// data is the ConfigMap's data; empty when there is none.
func (s *stored) data() map[string]string {
	if s.cm == nil {
		return map[string]string{}
	}
	return s.cm.Data
}
