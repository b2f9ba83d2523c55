package cloud

import (
	"context"
	"crypto/x509"
	"fmt"
	"testing"
	"time"

	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/cloudcontroller"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/accountprovider"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/apiwrites"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/inventorysync"
	"antreaplus.io/antreaplus/pkg/externalentity"
)

// interval is the poll interval of every test controller.
const interval = time.Second

// controller is a cloud controller running in the test process.
type controller struct {
	writes *apiwrites.Counter
	stop   context.CancelFunc
	done   chan error
}

// controllerOptions tweak a test controller.
type controllerOptions struct {
	roots   *x509.CertPool
	workers int
	opts    func(*cloudcontroller.Options)
}

// startController runs a cloud controller and the ExternalEntity controller
// watching only namespaces, until the test ends or Stop.
func startController(t *testing.T, o controllerOptions, namespaces ...string) *controller {
	t.Helper()
	s, err := scheme.New()
	if err != nil {
		t.Fatal(err)
	}
	nsCfg := map[string]cache.Config{}
	for _, ns := range namespaces {
		nsCfg[ns] = cache.Config{}
	}
	counter := apiwrites.NewCounter()
	mgr, err := ctrl.NewManager(clusters.Config(t, "member-1"), ctrl.Options{
		Scheme:     s,
		NewClient:  counter.NewClient,
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Cache:      cache.Options{DefaultNamespaces: nsCfg},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := cloudcontroller.Options{
		Provider: accountprovider.Options{RootCAs: o.roots, AWSMaxAttempts: 2, AWSMaxBackoff: time.Millisecond, AWSPageSize: 1000,
			AzureMaxRetries: 1, AzureRetryDelay: time.Millisecond, AzureMaxRetryDelay: 10 * time.Millisecond},
		Sync:      inventorysync.Options{PollIntervalOverride: interval, Workers: o.workers},
		Heartbeat: time.Hour,
	}
	if o.opts != nil {
		o.opts(&opts)
	}
	ctx, cancel := context.WithCancel(t.Context())
	if err := cloudcontroller.SetupWithManager(ctx, mgr, opts); err != nil {
		t.Fatal(err)
	}
	if err := externalentity.SetupWithManager(mgr, externalentity.Options{}); err != nil {
		t.Fatal(err)
	}
	c := &controller{writes: counter, stop: cancel, done: make(chan error, 1)}
	go func() { c.done <- mgr.Start(ctx) }()
	t.Cleanup(c.Stop)
	return c
}

// Stop stops the controller and waits until it has.
func (c *controller) Stop() {
	c.stop()
	if c.done != nil {
		if err := <-c.done; err != nil {
			panic(fmt.Sprintf("the cloud controller failed: %v", err))
		}
		c.done = nil
	}
}

// client is an admin client of the test cluster.
func kube(t *testing.T) client.Client {
	t.Helper()
	return clusters.Client(t, "member-1")
}
