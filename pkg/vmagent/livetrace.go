package vmagent

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"github.com/google/nftables/userdata"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// TraceMatch selects the packets a live trace follows through the agent's
// table: one direction, protocol and destination port, and optionally the
// peer's address (the destination of an egress packet, the source of an
// ingress one, as the VM sees it).
type TraceMatch struct {
	Direction policyrules.Direction
	Protocol  policyrules.Protocol
	Port      int32
	Peer      netip.Addr
	// UntilDecided ends during (its context is cancelled) as soon as a
	// traced packet is decided in the agent's table.
	UntilDecided bool
	// OnDecided, when set, is called once a traced packet is decided in
	// the agent's table (the first time; during goes on).
	OnDecided func()
}

// traceTableSuffix names the table that marks the traced packets: the
// agent's table name and this suffix. It is a table of its own, so that an
// apply, which replaces the agent's table, never drops the marking rule.
const traceTableSuffix = "-trace"

// tracePriority runs the marking chain before the agent's filter chains
// (nftables.ChainPriorityFilter, 0) and after conntrack (-200), so that the
// marked packet is traced through the agent's table.
const tracePriority = -150

// Trace follows the packets that m selects through the agent's table with
// the kernel's nftables tracing while during runs, and returns what decided
// the first of them. It adds a table of its own whose one rule sets
// nftrace on those packets, listens to the kernel's trace events
// (NFNLGRP_NFTRACE), and removes the table when done. during is what sends
// (a probe) or waits for (a window) the packets.
func (n *NFTables) Trace(ctx context.Context, m TraceMatch, during func(context.Context) error) (wire.Observation, error) {
	proto, ok := ipProtocol(m.Protocol)
	if !ok {
		return wire.Observation{}, fmt.Errorf("a live trace follows TCP, UDP or SCTP, not %q", m.Protocol)
	}
	events, err := n.listen()
	if err != nil {
		return wire.Observation{}, err
	}
	defer func() { _ = events.Close() }()
	marker := &nftables.Table{Family: nftables.TableFamilyINet, Name: n.table().Name + traceTableSuffix}
	if err := n.addMarker(marker, m, proto); err != nil {
		return wire.Observation{}, err
	}
	defer func() { _ = n.removeMarker(marker) }()

	collected := make(chan []traceEvent, 1)
	runCtx, decided := context.WithCancel(ctx)
	defer decided()
	go func() {
		var once sync.Once
		onDecided := func() {
			once.Do(func() {
				if m.OnDecided != nil {
					m.OnDecided()
				}
				if m.UntilDecided {
					decided()
				}
			})
		}
		collected <- readTraceEvents(events, n.table().Name, onDecided)
	}()
	runErr := during(runCtx)
	if errors.Is(runErr, context.Canceled) && ctx.Err() == nil {
		runErr = nil // ended because a packet was decided
	}
	// Trace events follow their packet within microseconds; the grace
	// covers a loaded machine.
	time.Sleep(200 * time.Millisecond)
	_ = events.SetReadDeadline(time.Now())
	evs := <-collected
	obs := n.decide(evs)
	if runErr != nil {
		obs.Note = joinNote(obs.Note, runErr.Error())
	}
	return obs, nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func ipProtocol(p policyrules.Protocol) (byte, bool) {
	switch p {
	case policyrules.ProtocolTCP, "":
		return unix.IPPROTO_TCP, true
	case policyrules.ProtocolUDP:
		return unix.IPPROTO_UDP, true
	case policyrules.ProtocolSCTP:
		return unix.IPPROTO_SCTP, true
	}
	return 0, false
}

// listen joins the kernel's nftables trace group in the agent's namespace.
func (n *NFTables) listen() (*netlink.Conn, error) {
	cfg := &netlink.Config{}
	if n.NetNSFd != 0 {
		cfg.NetNS = n.NetNSFd
	}
	c, err := netlink.Dial(unix.NETLINK_NETFILTER, cfg)
	if err != nil {
		return nil, fmt.Errorf("opening a netfilter netlink socket: %w", err)
	}
	if err := c.JoinGroup(unix.NFNLGRP_NFTRACE); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("listening to nftables trace events: %w", err)
	}
	return c, nil
}

// addMarker adds the table whose one rule sets nftrace on the packets m
// selects, before the agent's chains see them.
func (n *NFTables) addMarker(t *nftables.Table, m TraceMatch, proto byte) error {
	conn, err := n.conn()
	if err != nil {
		return err
	}
	conn.AddTable(t)
	conn.DelTable(t)
	conn.AddTable(t)
	accept := nftables.ChainPolicyAccept
	hook, field := nftables.ChainHookOutput, destinationAddress
	if m.Direction == policyrules.DirectionIngress {
		hook, field = nftables.ChainHookInput, sourceAddress
	}
	prio := nftables.ChainPriority(tracePriority)
	chain := conn.AddChain(&nftables.Chain{Name: "mark", Table: t, Type: nftables.ChainTypeFilter,
		Hooknum: hook, Priority: &prio, Policy: &accept})
	exprs := l4proto(proto)
	if m.Port > 0 {
		exprs = append(exprs, portRange(2, m.Port, m.Port)...)
	}
	if m.Peer.IsValid() {
		f := ipv4
		if !m.Peer.Is4() {
			f = ipv6
		}
		offset, length := addressOffset(f, field)
		exprs = append(exprs,
			&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{byte(f)}},
			&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: offset, Len: length})
		exprs = append(exprs, prefixCompare(netip.PrefixFrom(m.Peer, m.Peer.BitLen()), length)...)
	}
	exprs = append(exprs,
		&expr.Immediate{Register: 1, Data: []byte{1}},
		&expr.Meta{Key: expr.MetaKeyNFTRACE, SourceRegister: true, Register: 1})
	conn.AddRule(&nftables.Rule{Table: t, Chain: chain, Exprs: exprs,
		UserData: userdata.AppendString(nil, userdata.TypeComment, "antreaplus live trace")})
	if err := conn.Flush(); err != nil {
		return fmt.Errorf("adding the live trace's marking table %s: %w", t.Name, err)
	}
	return nil
}

func (n *NFTables) removeMarker(t *nftables.Table) error {
	conn, err := n.conn()
	if err != nil {
		return err
	}
	conn.DelTable(t)
	return conn.Flush()
}

// The netfilter verdicts a trace event carries (linux/netfilter.h).
const (
	nfDrop   = 0
	nfAccept = 1
)

// traceEvent is one kernel trace event of the agent's table.
type traceEvent struct {
	id      uint32
	chain   string
	handle  uint64
	kind    uint32 // unix.NFT_TRACETYPE_*
	verdict int32  // NF_ACCEPT, NF_DROP or an NFT_* jump code
	policy  uint32 // a base chain's policy (NFT_TRACETYPE_POLICY)
}

// decisive: the event ends the packet's walk through the table.
func (ev traceEvent) decisive() bool {
	return ev.kind == unix.NFT_TRACETYPE_POLICY ||
		(ev.kind == unix.NFT_TRACETYPE_RULE && (ev.verdict == nfAccept || ev.verdict == nfDrop))
}

// readTraceEvents reads trace events until the socket's deadline and keeps
// those of the agent's table.
func readTraceEvents(c *netlink.Conn, table string, onDecided func()) []traceEvent {
	var out []traceEvent
	want := netlink.HeaderType(unix.NFNL_SUBSYS_NFTABLES<<8 | unix.NFT_MSG_TRACE)
	for {
		msgs, err := c.Receive()
		if err != nil {
			return out
		}
		for _, msg := range msgs {
			if msg.Header.Type != want || len(msg.Data) < 4 {
				continue
			}
			if ev, tbl, ok := parseTraceEvent(msg.Data[4:]); ok && tbl == table {
				out = append(out, ev)
				if ev.decisive() {
					onDecided()
				}
			}
		}
	}
}

// parseTraceEvent decodes the attributes of an NFT_MSG_TRACE message (after
// its nfgenmsg header).
func parseTraceEvent(b []byte) (traceEvent, string, bool) {
	ad, err := netlink.NewAttributeDecoder(b)
	if err != nil {
		return traceEvent{}, "", false
	}
	ad.ByteOrder = binary.BigEndian
	var ev traceEvent
	var table string
	for ad.Next() {
		switch ad.Type() {
		case unix.NFTA_TRACE_TABLE:
			table = ad.String()
		case unix.NFTA_TRACE_CHAIN:
			ev.chain = ad.String()
		case unix.NFTA_TRACE_RULE_HANDLE:
			ev.handle = ad.Uint64()
		case unix.NFTA_TRACE_TYPE:
			ev.kind = ad.Uint32()
		case unix.NFTA_TRACE_ID:
			ev.id = ad.Uint32()
		case unix.NFTA_TRACE_POLICY:
			ev.policy = ad.Uint32()
		case unix.NFTA_TRACE_VERDICT:
			ad.Nested(func(nad *netlink.AttributeDecoder) error {
				nad.ByteOrder = binary.BigEndian
				for nad.Next() {
					if nad.Type() == unix.NFTA_VERDICT_CODE {
						ev.verdict = int32(nad.Uint32())
					}
				}
				return nil
			})
		}
	}
	return ev, table, ad.Err() == nil
}

// decide returns what decided the first traced packet in the agent's table.
func (n *NFTables) decide(evs []traceEvent) wire.Observation {
	if len(evs) == 0 {
		return wire.Observation{Verdict: wire.ObservedNotSeen,
			Note: "no traced packet reached the agent's table"}
	}
	first := evs[0].id
	var packet []traceEvent
	for _, ev := range evs {
		if ev.id == first {
			packet = append(packet, ev)
		}
	}
	obs := wire.Observation{Packets: countIDs(evs)}
	for _, ev := range packet {
		switch {
		case ev.kind == unix.NFT_TRACETYPE_POLICY:
			obs.Verdict = verdictOf(int32(ev.policy))
			obs.Note = "no rule: the " + ev.chain + " chain's policy (default allow)"
			return obs
		case ev.decisive():
			obs.Verdict = verdictOf(ev.verdict)
			comment, err := n.ruleComment(ev.chain, ev.handle)
			switch {
			case err != nil:
				obs.Note = fmt.Sprintf("rule %d of chain %s, since replaced (%v)", ev.handle, ev.chain, err)
			case comment == "established" || comment == "loopback":
				obs.Note = "the " + comment + " rule: not a policy's"
			default:
				if key, ok := parseComment(comment); ok {
					obs.Rule = &key
					if key.Action == policyrules.ActionReject && obs.Verdict == wire.ObservedDropped {
						obs.Verdict = wire.ObservedRejected
					}
				} else {
					obs.Note = "rule " + comment
				}
			}
			return obs
		}
	}
	obs.Verdict = wire.ObservedNotSeen
	obs.Note = "the traced packet left the agent's table undecided"
	return obs
}

func countIDs(evs []traceEvent) int {
	seen := map[uint32]bool{}
	for _, ev := range evs {
		seen[ev.id] = true
	}
	return len(seen)
}

func verdictOf(code int32) wire.ObservedVerdict {
	if code == nfAccept {
		return wire.ObservedAllowed
	}
	return wire.ObservedDropped
}

// ruleComment reads the comment of one rule of the agent's table.
func (n *NFTables) ruleComment(chain string, handle uint64) (string, error) {
	conn, err := n.conn()
	if err != nil {
		return "", err
	}
	rules, err := conn.GetRules(n.table(), &nftables.Chain{Name: chain, Table: n.table()})
	if err != nil {
		return "", err
	}
	for _, r := range rules {
		if r.Handle == handle {
			c, _ := userdata.GetString(r.UserData, userdata.TypeComment)
			return c, nil
		}
	}
	return "", errors.New("no rule has that handle")
}
