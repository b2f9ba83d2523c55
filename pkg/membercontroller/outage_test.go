package membercontroller

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	"antreaplus.io/antreaplus/test/framework"
)

const member = "member-1"

// outageLength is longer than client-go's first back-offs: without fresh
// informers, a reflector may then wait tens of seconds before it watches
// again.
const (
	outageLength = 15 * time.Second
	// recovery bounds the time from the path's return to the new export's
	// status: a probe (1 s), the old generation stopped, fresh caches synced.
	// Under the race detector on two loaded cores it took over 5 s once,
	// and over 10 s in a full test run. Without a renewal the reflectors'
	// back-off after a 15 s outage keeps them away for about 10 s more; the
	// bound is loose, and a missing renewal is caught by its counter below.
	recovery = 20 * time.Second
)

// TestFreshInformersAfterAnOutage cuts the member controller off from its
// API server (a proxy refuses connections, as a dead server does), brings
// the path back, and checks that an export created afterwards gets its
// Valid condition within seconds, through a renewal of the informers.
func TestFreshInformersAfterAnOutage(t *testing.T) {
	proxy, cfg := proxied(t, member)
	runController(t, cfg)
	c := clusters.Client(t, member)
	ns := clusters.Namespace(t, member)

	export(t, c, ns, "before")
	waitValid(t, c, ns, "before", 30*time.Second)
	renewed := renewals(t)

	proxy.Refuse()
	t.Cleanup(func() { _ = proxy.Restore() })
	time.Sleep(outageLength)
	if err := proxy.Restore(); err != nil {
		t.Fatalf("listening again on %s: %v", proxy.Addr(), err)
	}
	back := time.Now()
	export(t, c, ns, "after")
	waitValid(t, c, ns, "after", recovery)
	t.Logf("after a %s outage, an export created once the path was back was Valid %s later", outageLength, time.Since(back).Round(100*time.Millisecond))
	// The renewal is decided at the first probe after the path is back and
	// counted once the old generation has stopped: an old informer whose
	// reflector reconnected by itself may deliver the export first.
	framework.Eventually(t, 5*time.Second, func() error {
		if n := renewals(t); n != renewed+1 {
			return fmt.Errorf("antreaplus_outage_renewals_total{component=%q} went from %v to %v; want one renewal", Component, renewed, n)
		}
		return nil
	})
}

// proxied starts a TCP proxy to a cluster's API server and returns it with
// an admin configuration that goes through it.
func proxied(t *testing.T, cluster string) (*framework.TCPProxy, *rest.Config) {
	t.Helper()
	cfg := clusters.Config(t, cluster)
	proxy, host := framework.ProxyServer(t, cfg.Host)
	cfg.Host = host
	return proxy, cfg
}

// runController runs Run until the test ends.
func runController(t *testing.T, cfg *rest.Config) {
	t.Helper()
	if err := RegisterMetrics(metrics.Registry); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg, Options{}) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run returned %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Run did not return within 30 s of its context's end")
		}
	})
}

// export creates a ClusterIP Service and its ServiceExport.
func export(t *testing.T, c client.Client, ns, name string) {
	t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
	}
	exp := &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	for _, o := range []client.Object{svc, exp} {
		if err := c.Create(t.Context(), o); err != nil {
			t.Fatalf("creating %s %s/%s: %v", o.GetObjectKind().GroupVersionKind().Kind, ns, name, err)
		}
	}
}

// waitValid waits until the export's Valid condition is True.
func waitValid(t *testing.T, c client.Client, ns, name string, timeout time.Duration) {
	t.Helper()
	framework.Eventually(t, timeout, func() error {
		exp := &mcsv1beta1.ServiceExport{}
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, exp); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(exp.Status.Conditions, string(mcsv1beta1.ServiceExportConditionValid)) {
			return fmt.Errorf("export %s/%s not Valid: %v", ns, name, exp.Status.Conditions)
		}
		return nil
	})
}

// renewals reads antreaplus_outage_renewals_total of the member controller.
func renewals(t *testing.T) float64 {
	t.Helper()
	return framework.CounterValue(t, metrics.Registry, "antreaplus_outage_renewals_total", "component", Component)
}
