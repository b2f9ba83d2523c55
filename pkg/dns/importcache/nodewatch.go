package importcache

import (
	"context"

	"github.com/coredns/coredns/plugin/kubernetes/object"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// nodeController is one generation's informer of the member's Nodes: it
// files them in the Index's Nodes and, once it has listed, drops the Nodes
// it did not list (deleted while the API server was away). Nodes only
// refine locality, so the Watcher does not wait for them: it reports
// synced without them (a server whose service account may not list Nodes
// still answers, with the endpoints of every zone), and until they are
// listed a client's place is its cluster only.
func (w *Watcher) nodeController() cache.Controller {
	nodes := w.index.Nodes()
	lw := cache.NewFilteredListWatchFromClient(w.kube.CoreV1().RESTClient(), "nodes", metav1.NamespaceAll, func(*metav1.ListOptions) {})
	store, c := object.NewIndexerInformer(lw, &corev1.Node{}, setDelete[*Node]{set: nodes.Set, del: func(_, name string) { nodes.Delete(name) }}, cache.Indexers{}, object.DefaultProcessor(w.conv.Node, nil))
	return &listedNodes{Controller: c, store: store, nodes: nodes}
}

// listedNodes runs a Node informer and retains what it listed.
type listedNodes struct {
	cache.Controller
	store cache.Store
	nodes *Nodes
}

func (l *listedNodes) Run(stop <-chan struct{}) {
	go l.retainListed(stop)
	l.Controller.Run(stop)
}

func (l *listedNodes) RunWithContext(ctx context.Context) {
	go l.retainListed(ctx.Done())
	l.Controller.RunWithContext(ctx)
}

// HasSynced is always true: see nodeController.
func (l *listedNodes) HasSynced() bool { return true }

func (l *listedNodes) retainListed(stop <-chan struct{}) {
	if !cache.WaitForCacheSync(stop, l.Controller.HasSynced) {
		return
	}
	names := map[string]bool{}
	for _, k := range l.store.ListKeys() {
		names[k] = true
	}
	l.nodes.Retain(names)
}
