package manager

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/test/framework"
)

const (
	supervisor = "member-1"
	member     = "member-2"
	// outageLength is longer than client-go's first back-offs: without a
	// fresh cache, a reflector may then wait tens of seconds before it
	// watches again.
	outageLength = 15 * time.Second
	// recovery bounds the time from the path's return to the session seeing
	// the new export: a probe (1 s), the old generation stopped, fresh caches
	// synced; generous for the race detector on two loaded cores (10 s was
	// missed once at a load average of 30). The renewal itself is counted
	// below, so a reflector that reconnected by itself does not pass it.
	recovery = 20 * time.Second
)

// TestMemberCacheRenewedAfterOutage cuts the supervisor's manager off from
// a member's API server (a proxy refuses connections, as a dead server
// does), brings the path back, and checks that the member's session sees an
// export created afterwards within seconds, through a fresh cache.
func TestMemberCacheRenewedAfterOutage(t *testing.T) {
	proxy := federate(t)
	m := runManager(t)
	c := clusters.Client(t, member)
	ns := clusters.Namespace(t, member)

	export(t, c, ns, "before")
	seen(t, m, ns, "before", time.Minute)
	renewed := renewals(t, "federation-manager/"+member)

	proxy.Refuse()
	time.Sleep(outageLength)
	if err := proxy.Restore(); err != nil {
		t.Fatalf("listening again on %s: %v", proxy.Addr(), err)
	}
	back := time.Now()
	export(t, c, ns, "after")
	seen(t, m, ns, "after", recovery)
	t.Logf("after a %s outage, the session saw an export created once the path was back %s later", outageLength, time.Since(back).Round(100*time.Millisecond))
	// The renewal is decided at the first probe after the path is back and
	// counted once the old generation has stopped: an old cache whose
	// reflector reconnected by itself may see the export first.
	framework.Eventually(t, 5*time.Second, func() error {
		if n := renewals(t, "federation-manager/"+member); n != renewed+1 {
			return fmt.Errorf("antreaplus_outage_renewals_total{component=federation-manager/%s} went from %v to %v; want one renewal", member, renewed, n)
		}
		return nil
	})
}

// federated is the package's federation, made once (a member joins once):
// member-1 its supervisor, member-2 joined through a proxy the tests cut.
var federated struct {
	once  sync.Once
	proxy *framework.TCPProxy
	err   error
}

// federate makes member-1 the supervisor of a federation that member-2
// joins through a proxy to its API server (the registry holds the proxy's
// address), once for the package: every test that calls it gets the same
// proxy, serving again when it ends.
func federate(t *testing.T) *framework.TCPProxy {
	t.Helper()
	federated.once.Do(func() { federated.proxy, federated.err = makeFederation(t) })
	if federated.err != nil {
		t.Fatal(federated.err)
	}
	t.Cleanup(func() { _ = federated.proxy.Restore() })
	return federated.proxy
}

func makeFederation(t *testing.T) (*framework.TCPProxy, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	sup := membership.Cluster{Name: supervisor, Config: clusters.Config(t, supervisor)}
	if err := membership.Create(ctx, io.Discard, "fed", []membership.Cluster{sup}, membership.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("creating the federation: %w", err)
	}
	cfg := clusters.Config(t, member)
	server, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, err
	}
	// Not closed: the package's tests share it until the process ends.
	proxy, err := framework.NewTCPProxy(server.Host)
	if err != nil {
		return nil, err
	}
	server.Host = proxy.Addr()
	cfg.Host = server.String()
	joining := membership.Cluster{Name: member, Config: cfg}
	if _, err := membership.Join(ctx, io.Discard, joining, member, []membership.Cluster{sup}, membership.JoinOptions{FederationID: "fed"}); err != nil {
		return nil, fmt.Errorf("joining %s: %w", member, err)
	}
	return proxy, nil
}

// runManager runs the supervisor's manager in-process until the test ends,
// with the default options changed by each of with.
func runManager(t *testing.T, with ...func(*Options)) *Manager {
	t.Helper()
	cfg := clusters.Config(t, supervisor)
	sch, err := scheme.New()
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.LeaderControllers = []LeaderController{idle{}}
	for _, w := range with {
		w(&opts)
	}
	// Several tests of the package run a manager, one after the other: the
	// same controller names again in one process.
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: sch, Metrics: metricsserver.Options{BindAddress: "0"},
		Cache:      cache.Options{DefaultNamespaces: map[string]cache.Config{opts.Namespace: {}}},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := RegisterMetrics(metrics.Registry); err != nil {
		t.Fatal(err)
	}
	m := New(opts, supervisor, mgr.GetClient(), cfg)
	if err := m.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the manager returned %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("the manager did not stop within 30 s")
		}
	})
	return m
}

// idle is a leader controller that does nothing until leadership ends.
type idle struct{}

func (idle) Name() string { return "idle" }

func (idle) Run(ctx context.Context, _ Member) error {
	<-ctx.Done()
	return nil
}

// export creates a ServiceExport.
func export(t *testing.T, c client.Client, ns, name string) {
	t.Helper()
	exp := &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if err := c.Create(t.Context(), exp); err != nil {
		t.Fatalf("creating ServiceExport %s/%s: %v", ns, name, err)
	}
}

// seen waits until the member's session lists the export from its cache.
func seen(t *testing.T, m *Manager, ns, name string, timeout time.Duration) {
	t.Helper()
	framework.Eventually(t, timeout, func() error {
		m.mu.Lock()
		s := m.sessions[member]
		m.mu.Unlock()
		if s == nil || s.setupErr != nil {
			return fmt.Errorf("no session of %s", member)
		}
		cl, _ := s.currentMember()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		exp := &mcsv1beta1.ServiceExport{}
		return cl.GetCache().Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, exp)
	})
}

// renewals reads antreaplus_outage_renewals_total of a component.
func renewals(t *testing.T, component string) float64 {
	t.Helper()
	return framework.CounterValue(t, metrics.Registry, "antreaplus_outage_renewals_total", "component", component)
}
