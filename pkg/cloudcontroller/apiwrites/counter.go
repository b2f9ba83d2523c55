package apiwrites

import (
	"maps"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// Key is a verb (create, update, patch, apply, delete, deletecollection,
// or one of those with "/<subresource>") and a kind.
type Key struct {
	Verb string
	Kind string
}

// Counter counts writes; it is safe for concurrent use and is a
// prometheus.Collector.
type Counter struct {
	mu     sync.Mutex
	counts map[Key]int64
	desc   *prometheus.Desc
}

// NewCounter returns a counter at zero.
func NewCounter() *Counter {
	return &Counter{
		counts: map[Key]int64{},
		desc: prometheus.NewDesc("antreaplus_cloud_controller_api_writes_total",
			"Writes the cloud controller sent to the API server, by verb and kind.", []string{"verb", "kind"}, nil),
	}
}

// Wrap returns c with every write counted.
func (c *Counter) Wrap(cl client.Client) client.Client {
	return &countingClient{Client: cl, counter: c}
}

// NewClient is a client.NewClientFunc for ctrl.Options.NewClient: the
// default client (reads from the cache), with writes counted.
func (c *Counter) NewClient(cfg *rest.Config, opts client.Options) (client.Client, error) {
	cl, err := client.New(cfg, opts)
	if err != nil {
		return nil, err
	}
	return c.Wrap(cl), nil
}

// Total is the number of writes counted.
func (c *Counter) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for _, v := range c.counts {
		n += v
	}
	return n
}

// Counts returns the writes per verb and kind.
func (c *Counter) Counts() map[Key]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.counts)
}

// Describe implements prometheus.Collector.
func (c *Counter) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *Counter) Collect(ch chan<- prometheus.Metric) {
	for k, v := range c.Counts() {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(v), k.Verb, k.Kind)
	}
}

func (c *Counter) add(verb string, scheme *runtime.Scheme, obj runtime.Object) {
	kind := "unknown"
	if obj != nil {
		if gvk, err := apiutil.GVKForObject(obj, scheme); err == nil {
			kind = gvk.Kind
		}
	}
	c.mu.Lock()
	c.counts[Key{Verb: verb, Kind: kind}]++
	c.mu.Unlock()
}
