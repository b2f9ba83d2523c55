package entityimport

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/pkg/federation/leaderloop"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// Controller is the federated-entity leader controller.
type Controller struct {
	registry          client.Reader
	registryNamespace string
	// Options tune the loop run for every led member: workers, resync,
	// period, write rate.
	leaderloop.Options
	// UnreachableHoldDown is how long a member must be seen continuously
	// marked unreachable (UnreachableSince) before its entities are withdrawn.
	UnreachableHoldDown time.Duration
}

// New returns the controller. registry reads the supervisor's own registry
// (MemberClusters in registryNamespace): the members' labels, and whether a
// member missing from the manager's view has left the federation.
func New(registry client.Reader, registryNamespace string) *Controller {
	return &Controller{registry: registry, registryNamespace: registryNamespace, UnreachableHoldDown: 5 * time.Second,
		Options: leaderloop.Options{Workers: 4, Resync: time.Minute, Period: time.Second, WriteQPS: 200, WriteBurst: 400}}
}

// Name implements manager.LeaderController.
func (c *Controller) Name() string { return controllerName }

// controllerName labels the controller's metrics and log lines.
const controllerName = "entityimport"

// key is what one reconcile makes right: the RemoteEntities of one
// Namespace imported from one source member.
type key struct {
	Namespace string
	Source    string
}

// Run imports the entities the other members export into member m until ctx ends.
func (c *Controller) Run(ctx context.Context, m manager.Member) error {
	loop, err := leaderloop.New[key](ctx, c.Name(), m, c.Options)
	if err != nil {
		return err
	}
	r := &run{c: c, m: m, writer: loop.Writer, queue: loop.Queue, log: loop.Log}
	r.sources = r.newTracker()
	defer forgetMember(m.ClusterID)
	defer r.sources.Close()
	return loop.Run(ctx, leaderloop.Hooks[key]{
		Doing: "Importing federated entities", Start: r.hookLed, Sources: r.sources,
		EnqueueAll: r.enqueueAll, Reconcile: r.reconcile,
		LogValues: func(k key) []any { return []any{"namespace", k.Namespace, "source", k.Source} },
	})
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
