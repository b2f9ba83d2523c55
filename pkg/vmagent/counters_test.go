package vmagent

import (
	"path/filepath"
	"testing"
	"time"

	"antreaplus.io/antreaplus/internal/netns"
	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/test/infrastructure/distributiontest"
)

func TestCommentRoundTrip(t *testing.T) {
	for _, r := range []wire.Rule{
		{Policy: wire.PolicyRef{Kind: "AntreaNetworkPolicy", Namespace: "shop", Name: "web"}, Name: "from app (tier 2)",
			Direction: policyrules.DirectionIngress, RuleIndex: 3, Action: policyrules.ActionAllow},
		{Policy: wire.PolicyRef{Kind: "AntreaClusterNetworkPolicy", Name: "db"}, Name: "a/b",
			Direction: policyrules.DirectionEgress, RuleIndex: 0, Action: policyrules.ActionReject},
		{Policy: wire.PolicyRef{Kind: "AntreaNetworkPolicy", Namespace: "shop", Name: "web"},
			Direction: policyrules.DirectionEgress, RuleIndex: 12, Action: policyrules.ActionPass},
	} {
		key, ok := parseComment(ruleComment(&r))
		if !ok || key != r.Key() {
			t.Errorf("parseComment(%q) = %+v, %v; want %+v", ruleComment(&r), key, ok, r.Key())
		}
	}
	for _, c := range []string{"", "established", "loopback", "baseline tier", "ns/vm", "Kind:ns/name (Ingress x Allow)", "Kind:ns (Ingress 1 Allow)"} {
		if key, ok := parseComment(c); ok {
			t.Errorf("parseComment(%q) = %+v; want no key", c, key)
		}
	}
}

func TestNFTablesCountsWhatRulesDecide(t *testing.T) {
	l := newLab(t)
	l.serveTCP(t, 8001, 8002)
	view := viewOf("ns/server", serverAddresses,
		rule(in, "application", 250, allow, tcp(8001, 8001)),
		rule(in, "application", 250, drop, tcp(8002, 8002)))
	apply(t, l.server, view)
	for range 2 {
		conn, err := l.client1.Dial(t.Context(), "tcp", "10.77.1.2:8001")
		if err != nil {
			t.Fatalf("allowed connection: %v", err)
		}
		if err := netns.Exchange(conn, "hello", time.Second); err != nil {
			t.Fatal(err)
		}
		_ = conn.Close()
	}
	if got, err := netns.ProbeTCP(t.Context(), l.client1, "10.77.1.2:8002", 300*time.Millisecond); err != nil || got != netns.Dropped {
		t.Fatalf("probe of the dropped port: %q, %v", got, err)
	}
	fw := &NFTables{NetNSFd: l.server.Fd()}
	counts, err := fw.Counters()
	if err != nil {
		t.Fatal(err)
	}
	ep := endpointOf(view)
	allowRule, dropRule := ep.Rules[ep.Order[0]], ep.Rules[ep.Order[1]]
	allowKey, dropKey := allowRule.Key(), dropRule.Key()
	// Only the SYN of each allowed connection reaches the rule: the rest
	// of the connection is established.
	if c := counts[allowKey]; c.Packets != 2 || c.Bytes == 0 {
		t.Errorf("allow rule counted %+v, want the 2 SYNs", c)
	}
	if c := counts[dropKey]; c.Packets < 1 {
		t.Errorf("drop rule counted %+v, want the probe's SYN", c)
	}
	if len(counts) != 2 {
		t.Errorf("counted %d rules, want 2: %+v", len(counts), counts)
	}

	// Replacing the table hands its counts over and starts again at zero.
	res := apply(t, l.server, view)
	if res.CountError != nil || res.Replaced[allowKey] != counts[allowKey] || res.Replaced[dropKey] != counts[dropKey] {
		t.Errorf("apply replaced %+v (%v), want %+v", res.Replaced, res.CountError, counts)
	}
	after, err := fw.Counters()
	if err != nil {
		t.Fatal(err)
	}
	if after[allowKey].Packets != 0 || after[dropKey].Packets != 0 {
		t.Errorf("new table counted %+v, want zeros", after)
	}
}

// startCountingAgent runs an agent of ns/vm whose firewall is the lab
// server's, reporting every 100 ms, until stop is called.
func startCountingAgent(t *testing.T, opts consumer.Options, l *lab, state string) (a *Agent, stop func()) {
	t.Helper()
	return startAgentWith(t, opts, &NFTables{NetNSFd: l.server.Fd()}, state, func(o *Options) { o.ReportInterval = 100 * time.Millisecond })
}

func dropped(counts RuleCounts) uint64 {
	var n uint64
	for k, c := range counts {
		if k.Action == policyrules.ActionDrop {
			n += c.Packets
		}
	}
	return n
}

func reported(s *distributiontest.Server) uint64 {
	st, ok := s.Server.Agent(vmKey)
	if !ok || st.Report == nil {
		return 0
	}
	var n uint64
	for _, c := range st.Report.RuleCounts {
		if c.Action == policyrules.ActionDrop {
			n += c.Packets
		}
	}
	return n
}

// TestNFTablesWithoutCounters: with the counters off (vm-agent
// --rule-counters=false) the rules decide as before and count nothing.
func TestNFTablesWithoutCounters(t *testing.T) {
	l := newLab(t)
	l.serveTCP(t, 8001, 8002)
	view := viewOf("ns/server", serverAddresses,
		rule(in, "application", 250, allow, tcp(8001, 8001)),
		rule(in, "application", 250, drop, tcp(8002, 8002)))
	fw := &NFTables{NetNSFd: l.server.Fd(), NoCounters: true}
	if _, err := fw.Apply(view); err != nil {
		t.Fatal(err)
	}
	if got, err := netns.ProbeTCP(t.Context(), l.client1, "10.77.1.2:8001", time.Second); err != nil || got != netns.Connected {
		t.Fatalf("probe of the allowed port: %q, %v", got, err)
	}
	if got, err := netns.ProbeTCP(t.Context(), l.client1, "10.77.1.2:8002", 300*time.Millisecond); err != nil || got != netns.Dropped {
		t.Fatalf("probe of the dropped port: %q, %v", got, err)
	}
	counts, err := fw.Counters()
	if err != nil || len(counts) != 0 {
		t.Fatalf("counted %+v (%v), want nothing", counts, err)
	}
}

func TestAgentCountersSurviveRestartsAndUpdates(t *testing.T) {
	l := newLab(t)
	l.serveTCP(t, 8002)
	s := distributiontest.New(t)
	opts := s.ClientOptions(s.AgentToken("ns", "vm"))
	s.Publish(distributiontest.DropPorts("ns/nic", "vm", "10.77.1.2", 8002))
	state := filepath.Join(t.TempDir(), "state.json")
	probe := func() {
		t.Helper()
		if got, err := netns.ProbeTCP(t.Context(), l.client1, "10.77.1.2:8002", 300*time.Millisecond); err != nil || got != netns.Dropped {
			t.Fatalf("probe of the dropped port: %q, %v", got, err)
		}
	}
	count := func(a *Agent) uint64 {
		t.Helper()
		c, err := a.Counts()
		if err != nil {
			t.Fatal(err)
		}
		return dropped(c)
	}

	first, stop := startCountingAgent(t, opts, l, state)
	eventually(t, "the rules applied", func() bool { return first.Status().Applied != nil })
	probe()
	probe()
	n := count(first)
	if n < 2 {
		t.Fatalf("counted %d dropped packets after two probes", n)
	}
	eventually(t, "the counts reported", func() bool { return reported(s) == n })

	// A new generation replaces the table: its counts carry over.
	s.Publish(distributiontest.DropPorts("ns/nic", "vm", "10.77.1.2", 8002, 8003))
	eventually(t, "the update applied", func() bool { return first.Status().Applied.RuleCount() == 2 })
	if got := count(first); got != n {
		t.Fatalf("after an update the agent counts %d, want the %d counted before", got, n)
	}

	// The agent restarts: the kernel's table still counts what it counted,
	// and the new process re-applies the state file, taking the table's
	// counts into what it keeps: n once, not twice.
	stop()
	second, _ := startCountingAgent(t, opts, l, state)
	eventually(t, "the state file's rules applied", func() bool { return second.Status().Applied != nil })
	if got := count(second); got != n {
		t.Fatalf("after a restart the agent counts %d, want the %d counted before", got, n)
	}
	probe()
	if got := count(second); got <= n {
		t.Fatalf("after one more probe the agent counts %d, want more than %d", got, n)
	}
	eventually(t, "the new total reported", func() bool { return reported(s) == count(second) })
}
