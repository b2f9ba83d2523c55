package dnsendpoints

import (
	"context"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"

	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/joins"
	"antreaplus.io/antreaplus/pkg/federation/leaderloop"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// Controller is the DNSEndpoints leader controller.
type Controller struct {
	registry          client.Reader
	registryNamespace string
	// Options tune the loop run for every led member: Resync is also how
	// often the DNSEndpoints written are listed again (someone deleting or
	// changing one is repaired within it).
	leaderloop.Options
	// UnreachableHoldDown is how long a member must be seen continuously
	// marked unreachable before its exports drop out.
	UnreachableHoldDown time.Duration
}

// New returns the controller. registry reads the supervisor's own registry
// (MemberClusters in registryNamespace): whether a member missing from the
// manager's view has left the federation.
func New(registry client.Reader, registryNamespace string) *Controller {
	return &Controller{registry: registry, registryNamespace: registryNamespace, UnreachableHoldDown: 5 * time.Second,
		Options: leaderloop.Options{Workers: 2, Resync: 30 * time.Second, Period: time.Second, WriteQPS: 20, WriteBurst: 40}}
}

// Name implements manager.LeaderController.
func (c *Controller) Name() string { return controllerName }

// controllerName labels the controller's metrics and log lines.
const controllerName = "dnsendpoints"

// key is a federated Service: the records of one DNSEndpoint.
type key = types.NamespacedName

// Run keeps the DNSEndpoints of member m until ctx ends.
func (c *Controller) Run(ctx context.Context, m manager.Member) error {
	loop, err := leaderloop.New[key](ctx, c.Name(), m, c.Options)
	if err != nil {
		return err
	}
	r := &run{c: c, m: m, writer: loop.Writer, queue: loop.Queue, log: loop.Log, joins: joins.New(), stored: map[key]*externaldnsv1alpha1.DNSEndpoint{},
		nodes: map[string]map[string]string{}, warned: map[key]string{}}
	r.sources = r.newTracker()
	defer forgetMember(m.ClusterID)
	defer r.sources.Close()
	return loop.Run(ctx, leaderloop.Hooks[key]{
		Doing: "Publishing federated Services for ExternalDNS", Start: r.hookLed, Sources: r.sources,
		EnqueueAll: r.enqueueAll, Reconcile: r.reconcile,
		LogValues: func(k key) []any { return []any{"service", k.String()} },
	})
}

// run is the controller's state while it leads one member.
type run struct {
	c       *Controller
	m       manager.Member
	writer  client.Client
	queue   workqueue.TypedRateLimitingInterface[key]
	log     logr.Logger
	sources *sources.Tracker
	// joins knows the exports that join another federated Service.
	joins *joins.Index

	mu sync.Mutex
	// stored is what each DNSEndpoint of the led member was when last
	// listed, read or written: nil when there is none. A key missing from
	// the map is read before it is written.
	stored map[key]*externaldnsv1alpha1.DNSEndpoint
	// listed is false until the DNSEndpoints were listed once; listedAt
	// is when they last were.
	listed   bool
	listedAt time.Time
	// crdMissing is the led member's answer when it has no DNSEndpoint API;
	// toldMissing whether that was logged.
	crdMissing  error
	toldMissing bool
	// nodes are the digests (nodeDigest) of every member's nodes, by member
	// and node: a node event that changes none changes no record.
	nodes map[string]map[string]string
	// warned is, per key, the DNSEndpoint of someone else last reported in
	// the way (its UID), so that it is reported once.
	warned map[key]string
}

func (r *run) storedOf(k key) (*externaldnsv1alpha1.DNSEndpoint, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ep, ok := r.stored[k]
	return ep, ok
}

func (r *run) setStored(k key, ep *externaldnsv1alpha1.DNSEndpoint) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stored[k] = ep
}

func (r *run) forget(k key) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.stored, k)
}
