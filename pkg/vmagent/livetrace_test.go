package vmagent

import (
	"context"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"antreaplus.io/antreaplus/internal/netns"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/test/infrastructure/distributiontest"
)

// TestLiveTraceNamesTheRuleThatDecided: the kernel's nftables tracing,
// followed by the agent, names the rule that decided a real packet, in
// each direction, and says when no rule did or no packet came.
func TestLiveTraceNamesTheRuleThatDecided(t *testing.T) {
	l := newLab(t)
	l.serveTCP(t, 8001, 8002, 8003)
	server := viewOf("ns/server", serverAddresses,
		rule(in, "application", 250, allow, tcp(8001, 8001)),
		rule(in, "application", 250, drop, tcp(8002, 8002)))
	apply(t, l.server, server)
	client := viewOf("ns/client1", []string{"10.77.1.1", "fd77:1::1"},
		rule(out, "application", 250, reject, peers("10.77.1.2/32"), tcp(8003, 8003)))
	apply(t, l.client1, client)
	srv, cl := endpointOf(server), endpointOf(client)
	allowRule, dropRule, rejectRule := srv.Rules[srv.Order[0]], srv.Rules[srv.Order[1]], cl.Rules[cl.Order[0]]
	allowKey, dropKey, rejectKey := allowRule.Key(), dropRule.Key(), rejectRule.Key()
	probe := func(ns *netns.NS, address string) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := netns.ProbeTCP(ctx, ns, address, 300*time.Millisecond)
			return err
		}
	}
	client1 := netip.MustParseAddr("10.77.1.1")
	for _, tc := range []struct {
		name    string
		on      *netns.NS
		match   TraceMatch
		during  func(context.Context) error
		verdict wire.ObservedVerdict
		rule    *wire.RuleKey
	}{
		{"ingress allowed by a rule", l.server, TraceMatch{Direction: in, Protocol: policyrules.ProtocolTCP, Port: 8001, Peer: client1},
			probe(l.client1, "10.77.1.2:8001"), wire.ObservedAllowed, &allowKey},
		{"ingress dropped by a rule", l.server, TraceMatch{Direction: in, Protocol: policyrules.ProtocolTCP, Port: 8002, Peer: client1},
			probe(l.client1, "10.77.1.2:8002"), wire.ObservedDropped, &dropKey},
		{"egress rejected by a rule", l.client1, TraceMatch{Direction: out, Protocol: policyrules.ProtocolTCP, Port: 8003, Peer: netip.MustParseAddr("10.77.1.2")},
			probe(l.client1, "10.77.1.2:8003"), wire.ObservedRejected, &rejectKey},
		{"egress with no rule: the chain's policy", l.client2, TraceMatch{Direction: out, Protocol: policyrules.ProtocolTCP, Port: 8001},
			probe(l.client2, "10.77.2.2:8001"), wire.ObservedAllowed, nil},
		{"a packet from another address is not traced", l.server, TraceMatch{Direction: in, Protocol: policyrules.ProtocolTCP, Port: 8001, Peer: client1},
			probe(l.client2, "10.77.2.2:8001"), wire.ObservedNotSeen, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.on == l.client2 {
				apply(t, l.client2, viewOf("ns/client2", []string{"10.77.2.1"}))
			}
			fw := &NFTables{NetNSFd: tc.on.Fd()}
			obs, err := fw.Trace(t.Context(), tc.match, tc.during)
			if err != nil {
				t.Fatal(err)
			}
			if obs.Verdict != tc.verdict {
				t.Fatalf("verdict %s, want %s (%+v)", obs.Verdict, tc.verdict, obs)
			}
			switch {
			case tc.rule == nil && obs.Rule != nil:
				t.Errorf("decided by %+v, want no rule (%s)", *obs.Rule, obs.Note)
			case tc.rule != nil && (obs.Rule == nil || *obs.Rule != *tc.rule):
				t.Errorf("decided by %+v (%s), want %+v", obs.Rule, obs.Note, *tc.rule)
			}
			if tc.verdict != wire.ObservedNotSeen && obs.Packets < 1 {
				t.Errorf("traced %d packets", obs.Packets)
			}
			// The marking table is gone: nothing more is traced.
			conn, err := fw.conn()
			if err != nil {
				t.Fatal(err)
			}
			tables, err := conn.ListTables()
			if err != nil {
				t.Fatal(err)
			}
			for _, tb := range tables {
				if tb.Name == DefaultTable+traceTableSuffix {
					t.Errorf("the marking table %s was left behind", tb.Name)
				}
			}
		})
	}
}

// TestAgentAnswersLiveProbes: the server asks the agent for a probe
// through the distribution protocol; the agent watches its ingress rules
// while a real connection is dropped, and sends a connection of its own
// through its egress rules.
func TestAgentAnswersLiveProbes(t *testing.T) {
	l := newLab(t)
	l.serveTCP(t, 8002)
	s := distributiontest.New(t)
	s.Publish(distributiontest.DropPorts("ns/nic", "vm", "10.77.1.2", 8002))
	a, _ := startAgentWith(t, s.ClientOptions(s.AgentToken("ns", "vm")), &NFTables{NetNSFd: l.server.Fd()},
		filepath.Join(t.TempDir(), "state.json"), func(o *Options) { o.Dial = l.server.Dial })
	eventually(t, "the rules applied", func() bool { return a.Status().Applied != nil })

	watched := make(chan wire.ProbeResult, 1)
	go func() {
		res, err := s.Server.Probe(t.Context(), vmKey, wire.ProbeRequest{ID: "w1", Role: wire.ProbeWatch, Endpoint: "ns/nic",
			Protocol: policyrules.ProtocolTCP, Port: 8002, Peer: netip.MustParseAddr("10.77.1.1"), Seconds: 10}, nil)
		if err != nil {
			res.Error = err.Error()
		}
		watched <- res
	}()
	var res wire.ProbeResult
	for done := false; !done; {
		_, _ = netns.ProbeTCP(t.Context(), l.client1, "10.77.1.2:8002", 200*time.Millisecond)
		select {
		case res = <-watched:
			done = true
		case <-time.After(100 * time.Millisecond):
		}
	}
	if res.Error != "" || res.Observation.Verdict != wire.ObservedDropped || res.Observation.Rule == nil ||
		res.Observation.Rule.Action != policyrules.ActionDrop {
		t.Fatalf("watch: %+v, want dropped by the Drop rule", res)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	sent, err := s.Server.Probe(ctx, vmKey, wire.ProbeRequest{ID: "s1", Role: wire.ProbeSend, Endpoint: "ns/nic",
		Protocol: policyrules.ProtocolTCP, Port: 9, Peer: netip.MustParseAddr("10.77.1.1"), Seconds: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Nothing listens on the client: its kernel answers a reset; the
	// server's egress has no rule.
	if sent.Error != "" || sent.Observation.Verdict != wire.ObservedAllowed || sent.Observation.Rule != nil || !sent.Refused {
		t.Fatalf("send: %+v, want allowed by no rule and refused by the peer", sent)
	}

	bad, err := s.Server.Probe(ctx, vmKey, wire.ProbeRequest{ID: "b1", Role: wire.ProbeSend, Protocol: policyrules.ProtocolTCP, Port: 9, Seconds: 2}, nil)
	if err != nil || bad.Error != "a Send probe needs the peer's address" {
		t.Fatalf("a probe without a peer: %+v, %v", bad, err)
	}
}
