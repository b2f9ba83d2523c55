package serviceimport

import (
	"context"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/pkg/federation/joins"
	"antreaplus.io/antreaplus/pkg/federation/leaderloop"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// Controller is the federated-Service leader controller.
type Controller struct {
	registry          client.Reader
	registryNamespace string
	// Options tune the loop run for every led member: workers, resync,
	// period, write rate.
	leaderloop.Options
	// UnreachableHoldDown is how long a member must be seen continuously
	// marked unreachable (UnreachableSince) before its endpoints are
	// withdrawn: a manager that has just started marks members it has not
	// probed yet as unreachable for a moment.
	UnreachableHoldDown time.Duration
}

// New returns the controller. registry reads the supervisor's own registry
// (MemberClusters in registryNamespace): a source cluster missing from the
// manager's view is withdrawn only once it is gone from the registry.
func New(registry client.Reader, registryNamespace string) *Controller {
	return &Controller{registry: registry, registryNamespace: registryNamespace, UnreachableHoldDown: 5 * time.Second,
		Options: leaderloop.Options{Workers: 8, Resync: time.Minute, Period: time.Second, WriteQPS: 200, WriteBurst: 400}}
}

// Name implements manager.LeaderController.
func (c *Controller) Name() string { return controllerName }

// controllerName labels the controller's metrics and log lines.
const controllerName = "serviceimport"

// Run imports every federated Service into member m until ctx ends.
func (c *Controller) Run(ctx context.Context, m manager.Member) error {
	loop, err := leaderloop.New[types.NamespacedName](ctx, c.Name(), m, c.Options)
	if err != nil {
		return err
	}
	r := &run{c: c, m: m, writer: loop.Writer, queue: loop.Queue, log: loop.Log, joins: joins.New()}
	r.sources = r.newTracker()
	defer forgetMember(m.ClusterID)
	defer r.sources.Close()
	return loop.Run(ctx, leaderloop.Hooks[types.NamespacedName]{
		Doing: "Importing federated Services", Start: r.hookLed, Sources: r.sources,
		EnqueueAll: r.enqueueAll, Reconcile: r.reconcile,
		LogValues: func(k types.NamespacedName) []any { return []any{"name", k} },
	})
}

// run is the controller's state while it leads one member.
type run struct {
	c      *Controller
	m      manager.Member
	writer client.Client
	queue  workqueue.TypedRateLimitingInterface[types.NamespacedName]
	log    logr.Logger
	// sources judges every member: read, kept or withdrawn.
	sources *sources.Tracker
	// joins knows the exports that join another federated Service.
	joins *joins.Index
	// zones are the led member's node zones (zone -> region) last seen.
	zonesMu sync.Mutex
	zones   map[string]string
}
