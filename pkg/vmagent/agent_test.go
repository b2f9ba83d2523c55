package vmagent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"k8s.io/apimachinery/pkg/types"

	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/test/infrastructure/distributiontest"
)

// fakeFirewall records what it is asked to apply; it fails while fail is set.
type fakeFirewall struct {
	mu      sync.Mutex
	applied []*wire.View
	fail    bool
}

func (f *fakeFirewall) Apply(v *wire.View) (ApplyResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail {
		return ApplyResult{}, errors.New("netlink: no buffer space")
	}
	f.applied = append(f.applied, v)
	return ApplyResult{Rules: v.RuleCount()}, nil
}

func (f *fakeFirewall) last() *wire.View {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.applied) == 0 {
		return nil
	}
	return f.applied[len(f.applied)-1]
}

func (f *fakeFirewall) setFail(v bool) {
	f.mu.Lock()
	f.fail = v
	f.mu.Unlock()
}

var vmKey = types.NamespacedName{Namespace: "ns", Name: "vm"}

// startAgent runs an agent of ns/vm against s until the test ends.
func startAgent(t *testing.T, opts consumer.Options, fw Firewall, state string) *Agent {
	t.Helper()
	a, _ := startAgentWith(t, opts, fw, state, nil)
	return a
}

// startAgentWith runs an agent of ns/vm, its options changed by mod (when
// not nil), until stop is called or the test ends.
func startAgentWith(t *testing.T, opts consumer.Options, fw Firewall, state string, mod func(*Options)) (a *Agent, stop func()) {
	t.Helper()
	c, err := consumer.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Client: c, Firewall: fw, StatePath: state, Version: "test", RetryInterval: 50 * time.Millisecond,
		Interfaces: func() []string { return []string{"eth0"} }, Log: testr.New(t)}
	if mod != nil {
		mod(&o)
	}
	if a, err = New(o); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); _ = a.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return a, stop
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestAgentEnforcesReportsAndKeepsRulesWhileServerIsDown(t *testing.T) {
	s := distributiontest.New(t)
	opts := s.ClientOptions(s.AgentToken("ns", "vm"))
	s.Publish(distributiontest.DropPorts("ns/nic", "vm", "10.0.0.1", 80), distributiontest.DropPorts("ns/other", "vm-2", "10.0.0.2", 81))
	fw := &fakeFirewall{}
	state := filepath.Join(t.TempDir(), "state.json")
	a := startAgent(t, opts, fw, state)
	eventually(t, "the VM's rules applied", func() bool { v := fw.last(); return v != nil && v.RuleCount() == 1 })
	if got := fw.last().Names(); len(got) != 1 || got[0] != "ns/nic" {
		t.Fatalf("applied endpoints %v; want only the VM's", got)
	}
	eventually(t, "the report of the applied generation", func() bool {
		st, ok := s.Server.Agent(vmKey)
		return ok && st.Report != nil && st.Report.AppliedGeneration == fw.last().Generation && !st.Behind
	})
	// The state file is written beside the report, not necessarily before it.
	eventually(t, "the state file of the applied generation", func() bool {
		saved, vm, err := LoadState(state)
		if err != nil {
			t.Fatalf("state file: %v", err)
		}
		return saved != nil && saved.Generation == fw.last().Generation && vm == "ns/vm"
	})

	s.Down()
	eventually(t, "the agent to notice", func() bool { return !a.Status().Connected })
	time.Sleep(300 * time.Millisecond)
	if st := a.Status(); st.Applied.RuleCount() != 1 || fw.last().RuleCount() != 1 {
		t.Fatalf("rules changed while the server was down: %d", st.Applied.RuleCount())
	}
	// The server comes back as a new instance that holds a change.
	s.Publish(distributiontest.DropPorts("ns/nic", "vm", "10.0.0.1", 80, 443))
	s.Up()
	eventually(t, "the change after the server came back", func() bool {
		v := fw.last()
		return v.RuleCount() == 2 && v.Epoch == s.Hub.Epoch()
	})
}

func TestAgentRestartReappliesTheStateFile(t *testing.T) {
	s := distributiontest.New(t)
	opts := s.ClientOptions(s.AgentToken("ns", "vm"))
	s.Publish(distributiontest.DropPorts("ns/nic", "vm", "10.0.0.1", 80, 81))
	state := filepath.Join(t.TempDir(), "state.json")
	first := &fakeFirewall{}
	startAgent(t, opts, first, state)
	eventually(t, "rules saved", func() bool { v, _, _ := LoadState(state); return v != nil && v.RuleCount() == 2 })

	// A new agent process while the server is down: it enforces the state
	// file's rules at once.
	s.Down()
	second := &fakeFirewall{}
	startAgent(t, opts, second, state)
	eventually(t, "the state file's rules applied", func() bool { v := second.last(); return v != nil && v.RuleCount() == 2 })
	s.Up()
	eventually(t, "a resync with the new server instance", func() bool { return second.last().Epoch == s.Hub.Epoch() })
}

func TestAgentKeepsTheLastGoodRulesWhenApplyFails(t *testing.T) {
	s := distributiontest.New(t)
	opts := s.ClientOptions(s.AgentToken("ns", "vm"))
	s.Publish(distributiontest.DropPorts("ns/nic", "vm", "10.0.0.1", 80))
	fw := &fakeFirewall{}
	a := startAgent(t, opts, fw, filepath.Join(t.TempDir(), "state.json"))
	eventually(t, "the first rules", func() bool { return fw.last() != nil })
	good := fw.last()
	fw.setFail(true)
	s.Publish(distributiontest.DropPorts("ns/nic", "vm", "10.0.0.1", 80, 81))
	eventually(t, "the apply error reported", func() bool {
		st, _ := s.Server.Agent(vmKey)
		return st.Report != nil && st.Report.ApplyError != "" && st.Behind
	})
	if st := a.Status(); st.Applied != good || st.ApplyError == nil {
		t.Fatalf("after a failed apply: applied generation %d, error %v", st.Applied.Generation, st.ApplyError)
	}
	fw.setFail(false)
	eventually(t, "the retry to apply the newer rules", func() bool { return fw.last().RuleCount() == 2 })
}

func TestAgentIgnoresADamagedStateFile(t *testing.T) {
	s := distributiontest.New(t)
	opts := s.ClientOptions(s.AgentToken("ns", "vm"))
	s.Publish(distributiontest.DropPorts("ns/nic", "vm", "10.0.0.1", 80))
	state := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(state, []byte(`{"version":1,"view":{"endpoints":{"x":{"name":"x","order":["missing"]}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadState(state); !errors.Is(err, wire.ErrResync) {
		t.Fatalf("LoadState of a damaged file: %v", err)
	}
	fw := &fakeFirewall{}
	startAgent(t, opts, fw, state)
	eventually(t, "the server's rules", func() bool { v := fw.last(); return v != nil && v.RuleCount() == 1 })
}
