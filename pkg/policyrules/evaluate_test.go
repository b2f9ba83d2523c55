package policyrules

import (
	"net/netip"
	"testing"
)

func compiled(dir Direction, action Action, tier string, tierPriority int32, peers string, ports ...Port) CompiledRule {
	r := CompiledRule{Direction: dir, Action: action, Tier: tier, Priority: Priority{Tier: tierPriority}, Ports: ports}
	if peers == "any" {
		r.AnyPeer = true
	} else {
		r.Peers = []netip.Prefix{netip.MustParsePrefix(peers)}
	}
	return r
}

func TestEvaluate(t *testing.T) {
	tcp80 := Port{Protocol: ProtocolTCP, Port: 80, EndPort: 80}
	echo := Port{Protocol: ProtocolICMP, ICMPType: 8, ICMPCode: AnyType}
	tcpFromLowPorts := Port{Protocol: ProtocolTCP, SourcePort: 1, SourceEndPort: 1023}
	rules := []CompiledRule{
		compiled(DirectionIngress, ActionPass, TierSecurityOps, 100, "10.0.1.0/24"),
		compiled(DirectionIngress, ActionAllow, TierApplication, 250, "10.0.0.0/24", tcp80),
		compiled(DirectionIngress, ActionReject, TierApplication, 250, "10.0.0.0/8", echo),
		compiled(DirectionIngress, ActionDrop, TierApplication, 250, "10.0.0.0/8", tcpFromLowPorts),
		compiled(DirectionIngress, ActionDrop, TierApplication, 250, "10.0.0.0/8"),
		compiled(DirectionIngress, ActionDrop, TierBaseline, 253, "10.0.1.128/25"),
		compiled(DirectionEgress, ActionDrop, TierApplication, 250, "any"),
	}
	tests := []struct {
		name       string
		packet     Packet
		wantAction Action
		wantRule   int // index in rules, -1 for none
		wantPassed bool
	}{
		{name: "first matching rule decides", packet: Packet{Direction: DirectionIngress, Peer: netip.MustParseAddr("10.0.0.5"), Protocol: ProtocolTCP, Port: 80, SourcePort: 40000}, wantAction: ActionAllow, wantRule: 1},
		{name: "port mismatch falls to a later Drop", packet: Packet{Direction: DirectionIngress, Peer: netip.MustParseAddr("10.0.0.5"), Protocol: ProtocolTCP, Port: 81, SourcePort: 40000}, wantAction: ActionDrop, wantRule: 4},
		{name: "icmp type", packet: Packet{Direction: DirectionIngress, Peer: netip.MustParseAddr("10.9.0.5"), Protocol: ProtocolICMP, ICMPType: 8}, wantAction: ActionReject, wantRule: 2},
		{name: "icmp other type", packet: Packet{Direction: DirectionIngress, Peer: netip.MustParseAddr("10.9.0.5"), Protocol: ProtocolICMP, ICMPType: 0}, wantAction: ActionDrop, wantRule: 4},
		{name: "source port range", packet: Packet{Direction: DirectionIngress, Peer: netip.MustParseAddr("10.9.0.5"), Protocol: ProtocolTCP, Port: 22, SourcePort: 80}, wantAction: ActionDrop, wantRule: 3},
		{name: "no rule matches: default allow", packet: Packet{Direction: DirectionIngress, Peer: netip.MustParseAddr("192.168.0.1"), Protocol: ProtocolUDP, Port: 53}, wantAction: ActionAllow, wantRule: -1},
		{name: "pass skips application, baseline drops", packet: Packet{Direction: DirectionIngress, Peer: netip.MustParseAddr("10.0.1.200"), Protocol: ProtocolTCP, Port: 80}, wantAction: ActionDrop, wantRule: 5, wantPassed: true},
		{name: "pass skips application, nothing in baseline: allow", packet: Packet{Direction: DirectionIngress, Peer: netip.MustParseAddr("10.0.1.5"), Protocol: ProtocolTCP, Port: 80}, wantAction: ActionAllow, wantRule: -1, wantPassed: true},
		{name: "direction is respected", packet: Packet{Direction: DirectionEgress, Peer: netip.MustParseAddr("10.0.0.5"), Protocol: ProtocolTCP, Port: 80}, wantAction: ActionDrop, wantRule: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Evaluate(rules, tt.packet)
			if got.Action != tt.wantAction || got.Passed != tt.wantPassed {
				t.Errorf("got %s (passed %v), want %s (passed %v)", got.Action, got.Passed, tt.wantAction, tt.wantPassed)
			}
			switch {
			case tt.wantRule < 0 && got.Rule != nil:
				t.Errorf("decided by %+v, want no rule", *got.Rule)
			case tt.wantRule >= 0 && got.Rule != &rules[tt.wantRule]:
				t.Errorf("decided by %v, want rule %d", got.Rule, tt.wantRule)
			}
		})
	}
}

func TestPrefixesContain(t *testing.T) {
	prefixes := []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/25"), netip.MustParsePrefix("10.0.1.5/32"), netip.MustParsePrefix("fd00::/64"),
	}
	for addr, want := range map[string]bool{
		"10.0.0.0": true, "10.0.0.127": true, "10.0.0.128": false, "10.0.1.5": true, "10.0.1.6": false,
		"9.255.255.255": false, "fd00::1": true, "fd00:0:0:1::": false, "::ffff:10.0.0.1": true,
	} {
		t.Run(addr, func(t *testing.T) {
			if got := prefixesContain(prefixes, netip.MustParseAddr(addr)); got != want {
				t.Errorf("prefixesContain(%s) = %v, want %v", addr, got, want)
			}
		})
	}
}
