package consumer_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"

	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/test/infrastructure/distributiontest"
)

func TestAgentReceivesOnlyItsVMsRules(t *testing.T) {
	e := newEnv(t)
	a := e.watch(t, "vm-a", nil)
	cc := e.watch(t, "agentless", nil)
	eventually(t, "both views", func() bool { return a.last() != nil && cc.last() != nil })
	if got := a.last().Names(); !slices.Equal(got, []string{"a/nic-a"}) || a.last().Scope != "a/vm-a" {
		t.Errorf("agent of vm-a holds %v of scope %s", got, a.last().Scope)
	}
	if got := cc.last().Names(); !slices.Equal(got, []string{"a/svc", "b/svc"}) {
		t.Errorf("agentless consumer holds %v", got)
	}
	// Asking for another VM's scope changes nothing: the token decides.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, e.URL()+wire.PathWatch+"?scope=a/vm-b&vm=vm-b&node=vm-b", nil)
	req.Header.Set("Authorization", "Bearer "+e.token["vm-a"])
	resp, err := e.HTTP.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var ev wire.Event
	err = json.NewDecoder(resp.Body).Decode(&ev)
	_ = resp.Body.Close()
	if err != nil || ev.Scope != "a/vm-a" || len(ev.Endpoints) != 1 || ev.Endpoints[0].Name != "a/nic-a" {
		t.Errorf("vm-a's token asking for vm-b: %v, %+v", err, ev)
	}
}

func TestServerRefusesUnknownTokensAndVMs(t *testing.T) {
	e := newEnv(t)
	e.token["forged"] = "forged-token-forged-token-forged-token"
	for who, code := range map[string]int{"forged": http.StatusUnauthorized, "vm-gone": http.StatusForbidden} {
		_, err := e.client(t, who).Report(t.Context(), wire.Report{AgentVersion: "test"})
		var se *consumer.StatusError
		if !consumer.IsUnauthorized(err) || !errors.As(err, &se) || se.Code != code {
			t.Errorf("%s: %v, want %d", who, err, code)
		}
	}
	if _, err := e.client(t, "agentless").Report(t.Context(), wire.Report{}); !consumer.IsUnauthorized(err) {
		t.Errorf("the agentless consumer reported: %v", err)
	}
}

func TestWatchResumesAfterDisconnect(t *testing.T) {
	e := newEnv(t)
	a := e.watch(t, "vm-a", nil)
	eventually(t, "the first view", func() bool { return a.last() != nil })
	syncs := testutil.ToFloat64(e.Metrics.Watches.WithLabelValues("sync"))
	e.HTTP.CloseClientConnections()
	gen := e.Publish(update("a/nic-a", "vm-a", "10.0.0.1", 80, 90))
	eventually(t, "the change after the disconnection", func() bool { v := a.last(); return v.Generation == gen && v.RuleCount() == 2 })
	if got := testutil.ToFloat64(e.Metrics.Watches.WithLabelValues("resumed")); got < 1 {
		t.Errorf("resumed watches = %v, want at least 1", got)
	}
	if got := testutil.ToFloat64(e.Metrics.Watches.WithLabelValues("sync")); got != syncs {
		t.Errorf("syncs went from %v to %v: the reconnection did not resume", syncs, got)
	}
	// A client that starts from a view of another server instance gets a Sync.
	stale := *a.last()
	stale.Epoch = "old"
	b := e.watch(t, "vm-a", &stale)
	eventually(t, "a sync of the stale view", func() bool { v := b.last(); return v != nil && v.Epoch == e.Hub.Epoch() })
}

func TestRevokedTokenEndsTheStream(t *testing.T) {
	e := newEnv(t)
	a := e.watch(t, "vm-a", nil)
	eventually(t, "the first view", func() bool { return a.last() != nil })
	e.Revoke("a", "vm-a")
	eventually(t, "the stream to end and reconnections to be refused", func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		n := len(a.conns)
		return n >= 2 && consumer.IsUnauthorized(a.conns[n-1])
	})
}

func TestReportsShowInAgentStatus(t *testing.T) {
	e := newEnv(t)
	a := e.watch(t, "vm-a", nil)
	eventually(t, "the first view", func() bool { return a.last() != nil })
	v := a.last()
	resp, err := e.client(t, "vm-a").Report(t.Context(), wire.Report{AgentVersion: "v9", Interfaces: []string{"eth0"},
		AppliedEpoch: v.Epoch, AppliedGeneration: v.Generation, AppliedRules: v.RuleCount()})
	if err != nil || resp.VirtualMachine != "a/vm-a" || resp.Epoch != e.Hub.Epoch() {
		t.Fatalf("report: %+v, %v", resp, err)
	}
	st, ok := e.Server.Server.Agent(types.NamespacedName{Namespace: "a", Name: "vm-a"})
	if !ok || !st.Connected || st.Behind || st.Report.AgentVersion != "v9" || st.Events == 0 {
		t.Errorf("agent status %+v", st)
	}
	e.Publish(update("a/nic-a", "vm-a", "10.0.0.1", 80, 91))
	if st, _ := e.Server.Server.Agent(types.NamespacedName{Namespace: "a", Name: "vm-a"}); !st.Behind {
		t.Errorf("an agent that did not report the newest change is not behind: %+v", st)
	}
	if all := e.Server.Server.Agents(); len(all) != 1 || all[0].VirtualMachine != "a/vm-a" {
		t.Errorf("Agents() = %+v", all)
	}
}

// An idle stream outlives the server's write timeout: over HTTP/2 a write
// deadline left set after an event resets the stream when it passes.
func TestIdleWatchOutlivesTheWriteTimeout(t *testing.T) {
	e := &env{Server: distributiontest.New(t, func(o *policydistribution.ServerOptions) {
		o.Heartbeat, o.WriteTimeout = 400*time.Millisecond, 100*time.Millisecond
	}), token: map[string]string{}}
	e.token["vm-a"] = e.AgentToken("a", "vm-a")
	e.Publish(update("a/nic-a", "vm-a", "10.0.0.1", 80))
	a := e.watch(t, "vm-a", nil)
	eventually(t, "the first view", func() bool { return a.last() != nil })
	time.Sleep(1500 * time.Millisecond) // write timeouts pass between heartbeats
	for _, kind := range []string{"resumed", "sync"} {
		if got := testutil.ToFloat64(e.Metrics.Watches.WithLabelValues(kind)); kind == "resumed" && got != 0 || kind == "sync" && got != 1 {
			a.mu.Lock()
			t.Errorf("%s watches = %v after an idle 1.5 s: the stream was cut (%v)", kind, got, a.conns)
			a.mu.Unlock()
		}
	}
}
