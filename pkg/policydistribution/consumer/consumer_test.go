package consumer_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/test/infrastructure/distributiontest"
)

const agentlessNode = distributiontest.AgentlessNode

var (
	update = distributiontest.DropPorts
)

// env is a distribution server with tokens for the agents of VMs a/vm-a,
// a/vm-b and a/vm-gone (which the server refuses) and for the agentless
// consumer, holding rules for both VMs and two agentless services.
type env struct {
	*distributiontest.Server
	token map[string]string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{Server: distributiontest.New(t), token: map[string]string{}}
	for _, vm := range []string{"vm-a", "vm-b", "vm-gone"} {
		e.token[vm] = e.AgentToken("a", vm)
	}
	e.Deny("a", "vm-gone")
	e.token["agentless"] = e.AgentlessToken()
	e.Publish(update("a/nic-a", "vm-a", "10.0.0.1", 80), update("a/nic-b", "vm-b", "10.0.0.2", 81),
		update("a/svc", agentlessNode, "10.0.0.3", 82), update("b/svc", agentlessNode, "10.0.0.4", 83))
	return e
}

func (e *env) client(t *testing.T, who string) *consumer.Client {
	t.Helper()
	c, err := consumer.New(e.ClientOptions(e.token[who]))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// watcher runs a client's Watch and records its views and connection
// changes.
type watcher struct {
	mu    sync.Mutex
	views []*wire.View
	conns []error
	done  chan struct{}
}

func (e *env) watch(t *testing.T, who string, from *wire.View) *watcher {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	w := &watcher{done: make(chan struct{})}
	c := e.client(t, who)
	go func() {
		defer close(w.done)
		_ = c.Watch(ctx, from, func(v *wire.View, _ *wire.Event) {
			w.mu.Lock()
			w.views = append(w.views, v)
			w.mu.Unlock()
		}, func(err error) {
			w.mu.Lock()
			w.conns = append(w.conns, err)
			w.mu.Unlock()
		})
	}()
	t.Cleanup(func() { cancel(); <-w.done })
	return w
}

func (w *watcher) last() *wire.View {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.views) == 0 {
		return nil
	}
	return w.views[len(w.views)-1]
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}
