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
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
	mcsclient "sigs.k8s.io/mcs-api/pkg/client/clientset/versioned"

	"antreaplus.io/antreaplus/pkg/outage"
)

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
// would wait up to a minute in their back-off before watching again) and
// drops from the Index what went away meanwhile.
type Watcher struct {
	cfg    *rest.Config
	kube   kubernetes.Interface
	mcs    mcsclient.Interface
	conv   *Converter
	opts   WatcherOptions
	index  *Index
	stop   chan struct{}
	synced atomic.Bool

	mu  sync.Mutex
	gen *generation
}

// generation is one set of informers; an outage replaces it.
type generation struct {
	membership      *membership
	imports, slices cache.Store
	controllers     []cache.Controller
	stop            chan struct{}
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
	w := &Watcher{cfg: cfg, kube: kube, mcs: mcs, conv: NewConverter(), opts: opts, index: NewIndex(), stop: make(chan struct{})}
	if w.gen, err = w.newGeneration(); err != nil {
		return nil, err
	}
	return w, nil
}

// newGeneration makes informers that file into the Watcher's Index.
func (w *Watcher) newGeneration() (*generation, error) {
	g := &generation{stop: make(chan struct{})}
	imports := cache.NewFilteredListWatchFromClient(w.mcs.MulticlusterV1beta1().RESTClient(), "serviceimports", metav1.NamespaceAll, func(*metav1.ListOptions) {})
	var ic, sc cache.Controller
	g.imports, ic = object.NewIndexerInformer(imports, &mcsv1beta1.ServiceImport{}, importHandler{w.index}, cache.Indexers{},
		object.DefaultProcessor(w.conv.Import, nil))

	slices := cache.NewFilteredListWatchFromClient(w.kube.DiscoveryV1().RESTClient(), "endpointslices", metav1.NamespaceAll,
		func(o *metav1.ListOptions) { o.LabelSelector = mcsv1beta1.LabelServiceName })
	g.slices, sc = object.NewIndexerInformer(slices, &discoveryv1.EndpointSlice{}, sliceHandler{w.index}, cache.Indexers{},
		object.DefaultProcessor(w.conv.Slice, nil))
	g.controllers = []cache.Controller{ic, sc}

	var err error
	if g.membership, err = newMembership(w.cfg, w.opts.FederationID); err != nil {
		return nil, err
	}
	if g.membership.controller != nil {
		g.controllers = append(g.controllers, g.membership.controller)
	}
	return g, nil
}

func (g *generation) start() {
	for _, c := range g.controllers {
		go c.Run(g.stop)
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
	w.current().start()
	go w.watchOutages()
}

// Stop ends the informers.
func (w *Watcher) Stop() {
	close(w.stop)
	close(w.current().stop)
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

// watchOutages replaces the informers each time the API server answers
// after an outage of at least outage.RefreshAfter.
func (w *Watcher) watchOutages() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-w.stop
		cancel()
	}()
	probe := outage.Readyz(w.kube.Discovery().RESTClient())
	for {
		down, ok := outage.WaitForRecovery(ctx, probe)
		if !ok {
			return
		}
		w.refresh(down)
	}
}

// refresh replaces the informers and, once the new ones have listed,
// drops from the Index whatever they did not list: imports and slices
// deleted during the outage. Until then the Index answers from its last
// state.
func (w *Watcher) refresh(down time.Duration) {
	g, err := w.newGeneration()
	if err != nil {
		return // the old informers stay; the next outage tries again
	}
	w.mu.Lock()
	old := w.gen
	w.gen = g
	w.mu.Unlock()
	close(old.stop)
	g.start()
	for !g.hasSynced() {
		select {
		case <-w.stop:
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
	w.index.Retain(storeKeys(g.imports), storeKeys(g.slices))
	if w.opts.OnRefresh != nil {
		w.opts.OnRefresh(down)
	}
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

// importHandler files import events in the Index.
type importHandler struct{ x *Index }

func (h importHandler) OnAdd(obj any, _ bool) {
	if imp, ok := obj.(*Import); ok {
		h.x.SetImport(imp)
	}
}

func (h importHandler) OnUpdate(_, obj any) { h.OnAdd(obj, false) }

func (h importHandler) OnDelete(obj any) {
	if ns, name, ok := deletedKey(obj); ok {
		h.x.DeleteImport(ns, name)
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
