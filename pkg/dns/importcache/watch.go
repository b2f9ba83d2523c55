package importcache

import (
	"fmt"
	"time"

	"github.com/coredns/coredns/plugin/kubernetes/object"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
	mcsclient "sigs.k8s.io/mcs-api/pkg/client/clientset/versioned"
)

// WatcherOptions configure a Watcher.
type WatcherOptions struct {
	// FederationID, when set, is used as is and the ClusterMembership is not read.
	FederationID string
}

// Watcher fills an Index from a member's API server and reads the
// member's federation ID. When the API server goes away the Index keeps its
// last state and the informers retry until it is back.
type Watcher struct {
	index       *Index
	membership  *membership
	controllers []cache.Controller
	stop        chan struct{}
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
	w := &Watcher{index: NewIndex(), stop: make(chan struct{})}
	conv := NewConverter()

	imports := cache.NewFilteredListWatchFromClient(mcs.MulticlusterV1beta1().RESTClient(), "serviceimports", metav1.NamespaceAll, func(*metav1.ListOptions) {})
	_, ic := object.NewIndexerInformer(imports, &mcsv1beta1.ServiceImport{}, importHandler{w.index}, cache.Indexers{},
		object.DefaultProcessor(conv.Import, nil))

	slices := cache.NewFilteredListWatchFromClient(kube.DiscoveryV1().RESTClient(), "endpointslices", metav1.NamespaceAll,
		func(o *metav1.ListOptions) { o.LabelSelector = mcsv1beta1.LabelServiceName })
	_, sc := object.NewIndexerInformer(slices, &discoveryv1.EndpointSlice{}, sliceHandler{w.index}, cache.Indexers{},
		object.DefaultProcessor(conv.Slice, nil))
	w.controllers = []cache.Controller{ic, sc}

	w.membership, err = newMembership(cfg, opts.FederationID)
	if err != nil {
		return nil, err
	}
	if w.membership.controller != nil {
		w.controllers = append(w.controllers, w.membership.controller)
	}
	return w, nil
}

// Index is the Index the Watcher fills.
func (w *Watcher) Index() *Index { return w.index }

// FederationID is the member's federation ID, "" until it is known.
func (w *Watcher) FederationID() string { return w.membership.federationID() }

// Start runs the informers until Stop.
func (w *Watcher) Start() {
	for _, c := range w.controllers {
		go c.Run(w.stop)
	}
}

// Stop ends the informers.
func (w *Watcher) Stop() { close(w.stop) }

// HasSynced tells whether every informer has listed its objects once.
func (w *Watcher) HasSynced() bool {
	for _, c := range w.controllers {
		if !c.HasSynced() {
			return false
		}
	}
	return true
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
