package feeder

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policycompiler"
	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// Options configure a Feeder.
type Options struct {
	// Cache is the informer cache to read objects from. Required.
	Cache cache.Cache
	// Hub receives the compiled rules. Required.
	Hub *policydistribution.Hub
	// WithoutPods leaves Pods out: rules that select Pods as peers then
	// match none. It saves the memory of a Pod informer where no policy
	// on VMs names Pods.
	WithoutPods bool
	Metrics     *policydistribution.Metrics
	Log         logr.Logger
}

// Feeder keeps a policycompiler.Compiler current with the API server's
// objects, through informers, and publishes the rules it changes to a Hub.
// It is a manager.Runnable.
type Feeder struct {
	opts     Options
	compiler *policycompiler.Compiler
	// addresses are the ExternalEntities' IPs: the compiler's output does
	// not carry them, and a change of them alone must reach the agent.
	addresses map[string][]netip.Addr

	mu      sync.Mutex
	pending []op
	// enqueued is the generation of each policy last enqueued: an update
	// of its status alone is not compiled again.
	enqueued map[policyrules.PolicyRef]int64
	wake     chan struct{}

	// compileMu guards the compiler and compiled between process and
	// PolicyStatus.
	compileMu sync.Mutex
	// compiled is the generation of each policy the compiler holds.
	compiled map[policyrules.PolicyRef]int64
}

type op struct {
	obj    any
	delete bool
}

// New returns a Feeder; Start runs it.
func New(opts Options) *Feeder {
	if opts.Metrics == nil {
		opts.Metrics = policydistribution.NewMetrics()
	}
	return &Feeder{opts: opts, compiler: policycompiler.New(), addresses: map[string][]netip.Addr{}, wake: make(chan struct{}, 1),
		enqueued: map[policyrules.PolicyRef]int64{}, compiled: map[policyrules.PolicyRef]int64{}}
}

// The policy controller reads what the compiler reads (chart:
// files/rbac/policy-controller.yaml); Pods unless --without-pods.
// +kubebuilder:rbac:groups=crd.antrea.io,resources=tiers;clustergroups;groups;clusternetworkpolicies;networkpolicies;externalentities,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces;pods,verbs=get;list;watch

// kinds are the objects the compiler reads.
func (f *Feeder) kinds() []client.Object {
	objs := []client.Object{
		&antreav1beta1.Tier{}, &antreav1beta1.ClusterGroup{}, &antreav1beta1.Group{},
		&antreav1beta1.ClusterNetworkPolicy{}, &antreav1beta1.NetworkPolicy{},
		&antreav1alpha2.ExternalEntity{}, &corev1.Namespace{},
	}
	if !f.opts.WithoutPods {
		objs = append(objs, &corev1.Pod{})
	}
	return objs
}

// Start registers the informers, publishes a first complete compilation
// once they are synced (then marks the hub ready), and every change after,
// until ctx ends.
func (f *Feeder) Start(ctx context.Context) error {
	var synced []toolscache.InformerSynced
	for _, obj := range f.kinds() {
		inf, err := f.opts.Cache.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
		if err != nil {
			return fmt.Errorf("getting the informer of %T: %w", obj, err)
		}
		reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(o any) { f.enqueue(o, false) },
			UpdateFunc: func(_, o any) { f.enqueue(o, false) },
			DeleteFunc: func(o any) { f.enqueue(o, true) },
		})
		if err != nil {
			return fmt.Errorf("watching %T: %w", obj, err)
		}
		defer func() { _ = inf.RemoveEventHandler(reg) }()
		synced = append(synced, reg.HasSynced)
	}
	if !toolscache.WaitForCacheSync(ctx.Done(), synced...) {
		return ctx.Err()
	}
	f.process()
	f.opts.Hub.SetReady()
	f.opts.Log.Info("Policy distribution ready", "endpoints", len(f.compiler.Endpoints()), "generation", f.opts.Hub.Generation())
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-f.wake:
			f.process()
		}
	}
}

func (f *Feeder) enqueue(obj any, del bool) {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	converted := policycompiler.Convert(obj)
	if converted == nil {
		return
	}
	f.mu.Lock()
	if ref, gen, ok := policyOf(converted); ok {
		if last, seen := f.enqueued[ref]; !del && seen && gen != 0 && last == gen {
			f.mu.Unlock()
			return
		}
		f.enqueued[ref] = gen
		if del {
			delete(f.enqueued, ref)
		}
	}
	f.pending = append(f.pending, op{obj: converted, delete: del})
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// process hands the pending changes to the compiler and publishes what
// they changed as one generation.
func (f *Feeder) process() {
	f.mu.Lock()
	ops := f.pending
	f.pending = nil
	f.mu.Unlock()
	if len(ops) == 0 {
		return
	}
	start := time.Now()
	f.compileMu.Lock()
	defer f.compileMu.Unlock()
	moved := map[string]struct{}{}
	for _, o := range ops {
		if ref, gen, ok := policyOf(o.obj); ok {
			f.compiled[ref] = gen
			if o.delete {
				delete(f.compiled, ref)
			}
		}
		if ee, ok := o.obj.(*antreav1alpha2.ExternalEntity); ok {
			f.trackAddresses(ee, o.delete, moved)
		}
		var err error
		if o.delete {
			err = f.compiler.Delete(o.obj)
		} else {
			err = f.compiler.Upsert(o.obj)
		}
		if err != nil {
			f.opts.Log.Error(err, "Compiling")
		}
	}
	changed := f.compiler.Changed()
	for ep := range moved {
		if _, found := slices.BinarySearch(changed, ep); !found {
			changed = append(changed, ep)
		}
	}
	updates := make([]policydistribution.Update, 0, len(changed))
	for _, ep := range changed {
		rules, ok := f.compiler.Rules(ep)
		if !ok {
			updates = append(updates, policydistribution.Update{Endpoint: ep})
			continue
		}
		full := wire.NewEndpoint(rules, f.addresses[ep])
		updates = append(updates, policydistribution.Update{Endpoint: ep, Node: rules.ExternalNode, Rules: &full})
	}
	gen := f.opts.Hub.Publish(updates)
	took := time.Since(start)
	f.opts.Metrics.CompileSeconds.Observe(took.Seconds())
	if gen != 0 {
		f.opts.Metrics.Generation.Set(float64(gen))
		f.opts.Log.V(1).Info("Published", "generation", gen, "objects", len(ops), "endpoints", len(updates), "took", took)
	}
}

// trackAddresses records an ExternalEntity's IPs, and in moved those whose
// IPs changed.
func (f *Feeder) trackAddresses(ee *antreav1alpha2.ExternalEntity, del bool, moved map[string]struct{}) {
	key := ee.Namespace + "/" + ee.Name
	if del {
		delete(f.addresses, key)
		return
	}
	var addrs []netip.Addr
	for _, ep := range ee.Spec.Endpoints {
		if a, err := netip.ParseAddr(ep.IP); err == nil {
			addrs = append(addrs, a.Unmap())
		}
	}
	slices.SortFunc(addrs, netip.Addr.Compare)
	addrs = slices.Compact(addrs)
	if old, had := f.addresses[key]; had && !slices.Equal(old, addrs) {
		moved[key] = struct{}{}
	}
	f.addresses[key] = addrs
}

// PolicyStatus returns what the compiler says of a policy and the
// generation of the policy it compiled, or false when it holds no such
// policy.
func (f *Feeder) PolicyStatus(ref policyrules.PolicyRef) (policycompiler.PolicyStatus, int64, bool) {
	f.compileMu.Lock()
	defer f.compileMu.Unlock()
	st, ok := f.compiler.PolicyStatus(ref)
	return st, f.compiled[ref], ok
}

// policyOf returns the reference and generation of a policy object.
func policyOf(obj any) (policyrules.PolicyRef, int64, bool) {
	switch o := obj.(type) {
	case *antreav1beta1.NetworkPolicy:
		return policyrules.PolicyRef{Kind: policyrules.KindNetworkPolicy, Namespace: o.Namespace, Name: o.Name}, o.Generation, true
	case *antreav1beta1.ClusterNetworkPolicy:
		return policyrules.PolicyRef{Kind: policyrules.KindClusterNetworkPolicy, Name: o.Name}, o.Generation, true
	}
	return policyrules.PolicyRef{}, 0, false
}
