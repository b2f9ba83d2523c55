package controlplane

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/agentstatus"
	"antreaplus.io/antreaplus/pkg/policydistribution/agenttoken"
	"antreaplus.io/antreaplus/pkg/policydistribution/feeder"
	"antreaplus.io/antreaplus/pkg/policydistribution/livetrace"
	"antreaplus.io/antreaplus/pkg/policydistribution/policystats"
	"antreaplus.io/antreaplus/pkg/policydistribution/policystatus"
)

// Options configure the policy controller's distribution.
type Options struct {
	// Namespace is the controller's namespace: it holds the agentless
	// consumer's token.
	Namespace string
	// ListenAddress is where the HTTPS API listens, such as ":8443".
	ListenAddress string
	// Certificate serves the API. See EnsureServingCert.
	Certificate tls.Certificate
	// AgentlessNode is the externalNode of agentless VMs and services.
	AgentlessNode string
	// Heartbeat is the interval of Bookmarks on idle streams.
	Heartbeat time.Duration
	// WithoutPods: see feeder.Options.
	WithoutPods bool
	// DNSServer is the member's DNS server as VMs reach it, host:port,
	// which agents forward federation names to (empty: none).
	DNSServer string
	// StatsInterval is how often the counts agents report are written to
	// PolicyStats objects (default 30 s).
	StatsInterval time.Duration
}

// ControlPlane is the running distribution: its hub (the Go API for a
// consumer in the same process), its server, and their metrics
// (RegisterMetrics registers them).
type ControlPlane struct {
	Hub     *policydistribution.Hub
	Server  *policydistribution.Server
	Tokens  *policydistribution.Tokens
	Metrics *policydistribution.Metrics
	// Stats are the metrics of the PolicyStats writer.
	Stats *policystats.Metrics
	// Traces are the metrics of the Trace reconciler.
	Traces *livetrace.Metrics
}

// CacheOptions restricts the manager's Secret informer to token Secrets:
// the controller needs no other Secret. Merge them into the manager's
// cache options.
func CacheOptions() cache.Options {
	req, _ := labels.NewRequirement(policyv1alpha1.LabelDistributionToken, selection.Exists, nil)
	return cache.Options{ByObject: map[client.Object]cache.ByObject{
		&corev1.Secret{}: {Label: labels.NewSelector().Add(*req)},
	}}
}

// Setup wires the distribution into mgr: the compiler's feeder, the HTTPS
// server, the token and agent status reconcilers, and the policy status
// writer.
func Setup(ctx context.Context, mgr ctrl.Manager, opts Options) (*ControlPlane, error) {
	log := mgr.GetLogger().WithName("policy-distribution")
	metrics := policydistribution.NewMetrics()
	hub := policydistribution.NewHub()
	tokens := policydistribution.NewTokens(opts.Namespace)
	if err := agenttoken.FeedTokens(ctx, mgr.GetCache(), tokens); err != nil {
		return nil, err
	}
	status := &agentstatus.Reconciler{Client: mgr.GetClient(), Started: time.Now()}
	feed := feeder.New(feeder.Options{Cache: mgr.GetCache(), Hub: hub, WithoutPods: opts.WithoutPods, Metrics: metrics, Log: log})
	policies := &policystatus.Writer{Client: mgr.GetClient(), Hub: hub, Compiler: feed, AgentlessNode: opts.AgentlessNode,
		Log: log.WithName("policy-status")}
	server := policydistribution.NewServer(hub, policydistribution.ServerOptions{
		Authenticator: tokens, AgentlessNode: opts.AgentlessNode, CheckAgent: checkAgent(mgr.GetClient()),
		OnAgentChange:     func(vm types.NamespacedName) { status.Changed(vm); policies.Changed() },
		OnAgentlessReport: policies.Changed,
		Heartbeat:         opts.Heartbeat, DNSServer: opts.DNSServer, Metrics: metrics, Log: log,
	})
	status.Agents = server
	policies.Reports = server
	if err := status.SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("setting up the agent status reconciler: %w", err)
	}
	if err := (&agenttoken.Reconciler{Client: mgr.GetClient(), AgentlessNode: opts.AgentlessNode}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("setting up the agent token reconciler: %w", err)
	}
	stats := policystats.NewMetrics()
	traces := livetrace.NewMetrics()
	if err := (&livetrace.Reconciler{Client: mgr.GetClient(), Rules: hub, Prober: server, Cloud: server, AgentlessNode: opts.AgentlessNode,
		Metrics: traces, Log: log.WithName("trace")}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("setting up the trace reconciler: %w", err)
	}
	runnables := []manager.Runnable{
		feed,
		policies,
		&policystats.Writer{Client: mgr.GetClient(), Agents: server, Namespace: opts.Namespace, Interval: opts.StatsInterval,
			Metrics: stats, Log: log.WithName("policy-stats")},
		&httpsServer{addr: opts.ListenAddress, cert: opts.Certificate, handler: server.Handler()},
		manager.RunnableFunc(func(ctx context.Context) error {
			return ensureAgentless(ctx, mgr.GetClient(), opts.Namespace)
		}),
	}
	for _, r := range runnables {
		if err := mgr.Add(r); err != nil {
			return nil, err
		}
	}
	return &ControlPlane{Hub: hub, Server: server, Tokens: tokens, Metrics: metrics, Stats: stats, Traces: traces}, nil
}

// ensureAgentless creates the agentless consumer's token, retrying until
// it succeeds or ctx ends.
func ensureAgentless(ctx context.Context, c client.Client, namespace string) error {
	for wait := time.Second; ; wait = min(2*wait, time.Minute) {
		err := agenttoken.EnsureAgentless(ctx, c, namespace)
		if err == nil {
			return nil
		}
		ctrl.Log.WithName("policy-distribution").Error(err, "Creating the agentless consumer's token; retrying", "in", wait)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// checkAgent allows the agent of an existing, agented VirtualMachine.
func checkAgent(c client.Reader) policydistribution.AgentCheck {
	return func(ctx context.Context, key types.NamespacedName) error {
		vm := &cloudv1alpha1.VirtualMachine{}
		if err := c.Get(ctx, key, vm); err != nil {
			return fmt.Errorf("VirtualMachine %s: %w", key, err)
		}
		if vm.Spec.EnforcementMode != cloudv1alpha1.EnforcementAgented {
			return fmt.Errorf("VirtualMachine %s is not agented", key)
		}
		return nil
	}
}

// httpsServer serves the distribution API until the manager stops.
type httpsServer struct {
	addr    string
	cert    tls.Certificate
	handler http.Handler
}

func (s *httpsServer) Start(ctx context.Context) error {
	l, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", s.addr, err)
	}
	srv := &http.Server{
		Handler:           s.handler,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{s.cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	ctrl.Log.WithName("policy-distribution").Info("Serving the policy distribution API", "address", l.Addr().String())
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.ServeTLS(l, "", ""); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
