package importcache

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coredns/coredns/plugin/kubernetes/object"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
	mcsclient "sigs.k8s.io/mcs-api/pkg/client/clientset/versioned"

	"antreaplus.io/antreaplus/internal/outage"
)

// The DNS server's rights for the imports and the Nodes' places (chart:
// files/rbac/coredns.yaml); Nodes are optional (locality).
// +kubebuilder:rbac:groups=multicluster.x-k8s.io,resources=serviceimports,verbs=list;watch
// +kubebuilder:rbac:groups=discovery.k8s.io,resources=endpointslices,verbs=list;watch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=list;watch

// WatcherOptions configure a Watcher.
type WatcherOptions struct {
	// FederationID, when set, is used as is and the ClusterMembership is not read.
	FederationID string
	// OnRefresh, when set, is told each time the informers were replaced
	// after an outage of the API server (how long the outage was).
	OnRefresh func(outage time.Duration)
}

// Watcher fills an Index from a member's API server and reads the
// member's federation ID. When the API server goes away the Index keeps its
// last state. When it answers again after an outage of at least
// outage.RefreshAfter, the Watcher replaces its informers (client-go's
// would wait up to a minute in their back-off before watching again): the
// Index and the federation ID keep answering from their last state while
// the new informers list, then the Index drops what went away meanwhile.
type Watcher struct {
	cfg    *rest.Config
	kube   kubernetes.Interface
	mcs    mcsclient.Interface
	conv   *Converter
	opts   WatcherOptions
	index  *Index
	synced atomic.Bool

	mu     sync.Mutex
	gen    *generation
	cancel context.CancelFunc // ends the informers; nil until Start
	done   chan struct{}      // closed once they ended
}

// generation is one set of informers; an outage replaces it.
type generation struct {
	membership      *membership
	imports, slices cache.Store
	controllers     []cache.Controller
}

// NewWatcher returns a Watcher of the member cfg points at.
func NewWatcher(cfg *rest.Config, opts WatcherOptions) (*Watcher, error) {
	pb := rest.CopyConfig(cfg)
	pb.ContentType = "application/vnd.kubernetes.protobuf"
	pb.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	kube, err := kubernetes.NewForConfig(pb)
	if err != nil {
		return nil, fmt.Errorf("creating the Kubernetes client: %w", err)
	}
	mcs, err := mcsclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the multicluster.x-k8s.io client: %w", err)
	}
	w := &Watcher{cfg: cfg, kube: kube, mcs: mcs, conv: NewConverter(), opts: opts, index: NewIndex()}
	if w.gen, err = w.newGeneration(); err != nil {
		return nil, err
	}
	return w, nil
}

// newGeneration makes informers that file into the Watcher's Index.
func (w *Watcher) newGeneration() (*generation, error) {
	g := &generation{}
	imports := cache.NewFilteredListWatchFromClient(w.mcs.MulticlusterV1beta1().RESTClient(), "serviceimports", metav1.NamespaceAll, func(*metav1.ListOptions) {})
	var ic, sc cache.Controller
	g.imports, ic = object.NewIndexerInformer(imports, &mcsv1beta1.ServiceImport{}, setDelete[*Import]{set: w.index.SetImport, del: w.index.DeleteImport}, cache.Indexers{},
		object.DefaultProcessor(w.conv.Import, nil))

	slices := cache.NewFilteredListWatchFromClient(w.kube.DiscoveryV1().RESTClient(), "endpointslices", metav1.NamespaceAll,
		func(o *metav1.ListOptions) { o.LabelSelector = mcsv1beta1.LabelServiceName })
	g.slices, sc = object.NewIndexerInformer(slices, &discoveryv1.EndpointSlice{}, sliceHandler{w.index}, cache.Indexers{},
		object.DefaultProcessor(w.conv.Slice, nil))
	g.controllers = []cache.Controller{ic, sc, w.nodeController()}

	var err error
	if g.membership, err = newMembership(w.cfg, w.opts.FederationID); err != nil {
		return nil, err
	}
	if g.membership.controller != nil {
		g.controllers = append(g.controllers, g.membership.controller)
	}
	return g, nil
}

func (g *generation) start(stop <-chan struct{}) {
	for _, c := range g.controllers {
		go c.Run(stop)
	}
}

func (g *generation) hasSynced() bool {
	for _, c := range g.controllers {
		if !c.HasSynced() {
			return false
		}
	}
	return true
}

func (w *Watcher) current() *generation {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gen
}

// Index is the Index the Watcher fills.
func (w *Watcher) Index() *Index { return w.index }

// FederationID is the member's federation ID, "" until it is known.
func (w *Watcher) FederationID() string { return w.current().membership.federationID() }

// Start runs the informers, and replaces them after outages, until Stop.
func (w *Watcher) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w.mu.Lock()
	w.cancel, w.done = cancel, done
	w.mu.Unlock()
	r := outage.Renewer{Component: Component, Probe: outage.Readyz(w.kube.Discovery().RESTClient()), Log: klog.Background().WithName(Component)}
	go func() {
		defer close(done)
		if err := r.Run(ctx, w.run); err != nil {
			klog.Background().Error(err, "The imports' informers stopped: answering from their last state")
		}
	}()
}

// Component names the Watcher in antreaplus_outage_renewals_total.
const Component = "dns-importcache"

// Stop ends the informers and waits for them.
func (w *Watcher) Stop() {
	w.mu.Lock()
	cancel, done := w.cancel, w.done
	w.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// HasSynced tells whether the informers have listed every object once.
// It stays true while informers replaced after an outage list again: the
// Index keeps answering from its last state meanwhile.
func (w *Watcher) HasSynced() bool {
	if w.synced.Load() {
		return true
	}
	if w.current().hasSynced() {
		w.synced.Store(true)
		return true
	}
	return false
}

// WaitSynced waits until HasSynced or the timeout, and tells which came first.
func (w *Watcher) WaitSynced(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for !w.HasSynced() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

// run runs one generation of informers until ctx ends: the one NewWatcher
// made, then a fresh one after each outage (package outage). A fresh one
// takes over the federation ID it replaces until it has listed; once it
// has, the Index drops whatever it did not list: imports and slices
// deleted during the outage. Until then the Index answers from its last
// state.
func (w *Watcher) run(ctx context.Context, o outage.Generation) error {
	g := w.current()
	var carried *string
	if o.N > 0 {
		next, err := w.newGeneration()
		if err != nil {
			return err
		}
		next.membership.carryOver(g.membership)
		carried = next.membership.id.Load()
		w.mu.Lock()
		w.gen, g = next, next
		w.mu.Unlock()
	}
	g.start(ctx.Done())
	if o.N > 0 && cache.WaitForCacheSync(ctx.Done(), g.hasSynced) {
		w.index.Retain(storeKeys(g.imports), storeKeys(g.slices))
		g.membership.forgetUnlisted(carried)
		if w.opts.OnRefresh != nil {
			w.opts.OnRefresh(o.Outage)
		}
	}
	<-ctx.Done()
	return nil
}

// storeKeys are the namespaces and names of a store's objects.
func storeKeys(s cache.Store) map[Key]bool {
	keys := map[Key]bool{}
	for _, k := range s.ListKeys() {
		if ns, name, err := cache.SplitMetaNamespaceKey(k); err == nil {
			keys[Key{ns, name}] = true
		}
	}
	return keys
}

// setDelete files the events of one kind of slim object T: set on add and
// update, del (by namespace and name) on delete, also when the informer
// only knows the deleted object by key.
type setDelete[T any] struct {
	set func(T)
	del func(namespace, name string)
}

func (h setDelete[T]) OnAdd(obj any, _ bool) {
	if o, ok := obj.(T); ok {
		h.set(o)
	}
}

func (h setDelete[T]) OnUpdate(_, obj any) { h.OnAdd(obj, false) }

func (h setDelete[T]) OnDelete(obj any) {
	if ns, name, ok := deletedKey(obj); ok {
		h.del(ns, name)
	}
}

// sliceHandler files EndpointSlice events in the Index.
type sliceHandler struct{ x *Index }

func (h sliceHandler) OnAdd(obj any, _ bool) {
	if s, ok := obj.(*Slice); ok {
		h.x.SetSlice(nil, s)
	}
}

func (h sliceHandler) OnUpdate(oldObj, obj any) {
	old, _ := oldObj.(*Slice)
	if s, ok := obj.(*Slice); ok {
		h.x.SetSlice(old, s)
	}
}

func (h sliceHandler) OnDelete(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if s, ok := obj.(*Slice); ok {
		h.x.DeleteSlice(s)
	}
}

// deletedKey is the namespace and name of a deleted object, also when the
// informer only knows its final state by key.
func deletedKey(obj any) (string, string, bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		ns, name, err := cache.SplitMetaNamespaceKey(d.Key)
		return ns, name, err == nil
	}
	if m, ok := obj.(metav1.Object); ok {
		return m.GetNamespace(), m.GetName(), true
	}
	return "", "", false
}
