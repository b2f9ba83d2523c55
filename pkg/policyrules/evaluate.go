package policyrules

import (
	"net/netip"
	"slices"
)

// Packet is the first packet of a connection, as an enforcement point sees
// it.
type Packet struct {
	Direction Direction
	// Peer is the source of ingress traffic, the destination of egress.
	Peer     netip.Addr
	Protocol Protocol
	// Port and SourcePort are the destination and source ports (TCP, UDP,
	// SCTP).
	Port       int32
	SourcePort int32
	// ICMPType and ICMPCode (ICMP), or IGMPType and GroupAddress (IGMP).
	ICMPType     int32
	ICMPCode     int32
	IGMPType     int32
	GroupAddress netip.Addr
}

// Decision is what the rules do with a Packet.
type Decision struct {
	// Action is Allow, Drop or Reject: DefaultAction when no rule decides.
	Action Action
	// Rule is the rule that decided, nil when none did.
	Rule *CompiledRule
	// Passed is true when a Pass rule sent the packet to the baseline tier.
	Passed bool
}

// Evaluate applies rules, in their order, to a packet: the reference for
// what an enforcement point must do. The first matching rule decides,
// except that a Pass rule skips every later rule outside the baseline
// tier. With no decision, DefaultAction applies.
func Evaluate(rules []CompiledRule, p Packet) Decision {
	passed := false
	for i := range rules {
		r := &rules[i]
		if r.Direction != p.Direction || (passed && !r.InBaselineTier()) || !r.Matches(p) {
			continue
		}
		if r.Action == ActionPass {
			passed = true
			continue
		}
		return Decision{Action: r.Action, Rule: r, Passed: passed}
	}
	return Decision{Action: DefaultAction, Passed: passed}
}

// Matches reports whether a packet of the rule's direction matches the
// rule's peers and ports.
func (r *CompiledRule) Matches(p Packet) bool {
	if !r.AnyPeer && !prefixesContain(r.Peers, p.Peer) {
		return false
	}
	if len(r.Ports) == 0 {
		return true
	}
	for _, port := range r.Ports {
		if port.Matches(p) {
			return true
		}
	}
	return false
}

// Matches reports whether a packet is of the kind of traffic port selects.
func (port Port) Matches(p Packet) bool {
	if port.Protocol != p.Protocol {
		return false
	}
	switch port.Protocol {
	case ProtocolICMP:
		return typeMatches(port.ICMPType, p.ICMPType) && typeMatches(port.ICMPCode, p.ICMPCode)
	case ProtocolIGMP:
		return typeMatches(port.IGMPType, p.IGMPType) && (!port.GroupAddress.IsValid() || port.GroupAddress == p.GroupAddress)
	}
	return inRange(port.Port, port.EndPort, p.Port) && inRange(port.SourcePort, port.SourceEndPort, p.SourcePort)
}

func typeMatches(want, got int32) bool { return want == AnyType || want == got }

func inRange(first, last, v int32) bool { return first == 0 || (first <= v && v <= last) }

// prefixesContain reports whether addr is in one of the sorted, disjoint
// prefixes.
func prefixesContain(prefixes []netip.Prefix, addr netip.Addr) bool {
	addr = addr.Unmap()
	i, _ := slices.BinarySearchFunc(prefixes, addr, func(p netip.Prefix, a netip.Addr) int {
		return p.Addr().Compare(a)
	})
	// The prefix that holds addr starts at or before it.
	if i < len(prefixes) && prefixes[i].Contains(addr) {
		return true
	}
	return i > 0 && prefixes[i-1].Contains(addr)
}
