package sgtranslate

import (
	"net/netip"
	"slices"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// This file decides how the traffic two rules match relates: the peers of
// one address family and the ports (an empty list matches every port).

var allOf = [2]netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}

func familyAll(v6 bool) netip.Prefix {
	if v6 {
		return allOf[1]
	}
	return allOf[0]
}

// familyPeers returns the rule's peers of one address family.
func familyPeers(r *wire.Rule, v6 bool) []netip.Prefix {
	if r.AnyPeer {
		return []netip.Prefix{familyAll(v6)}
	}
	var out []netip.Prefix
	for _, p := range r.Peers {
		if p.Addr().Unmap().Is6() == v6 {
			out = append(out, netip.PrefixFrom(p.Addr().Unmap(), min(p.Bits(), p.Addr().Unmap().BitLen())).Masked())
		}
	}
	return out
}

func peersOverlap(a, b []netip.Prefix) bool {
	for _, x := range a {
		if slices.ContainsFunc(b, x.Overlaps) {
			return true
		}
	}
	return false
}

func covers(outer, inner netip.Prefix) bool {
	return outer.Bits() <= inner.Bits() && outer.Contains(inner.Addr())
}

// subtractPeers returns the addresses of a that are in none of holes, as
// prefixes.
func subtractPeers(a, holes []netip.Prefix) []netip.Prefix {
	var out []netip.Prefix
	var walk func(p netip.Prefix)
	walk = func(p netip.Prefix) {
		overlapping := false
		for _, h := range holes {
			if covers(h, p) {
				return
			}
			overlapping = overlapping || h.Overlaps(p)
		}
		if !overlapping {
			out = append(out, p)
			return
		}
		lo, hi := halves(p)
		walk(lo)
		walk(hi)
	}
	for _, p := range a {
		walk(p)
	}
	return out
}

// halves splits a prefix that is not a single address into its two halves.
func halves(p netip.Prefix) (netip.Prefix, netip.Prefix) {
	bits := p.Bits() + 1
	lo := netip.PrefixFrom(p.Addr(), bits)
	raw := p.Addr().AsSlice()
	i := p.Bits()
	raw[i/8] |= 0x80 >> (i % 8)
	hi, _ := netip.AddrFromSlice(raw)
	return lo, netip.PrefixFrom(hi, bits)
}

// portRange returns the range a port and end port select: 0 is every
// port, an end of 0 the port alone.
func portRange(port, end int32) (int32, int32) {
	switch {
	case port == 0:
		return 0, 65535
	case end == 0:
		return port, port
	}
	return port, end
}

func rangesOverlap(a0, a1, b0, b1 int32) bool { return a0 <= b1 && b0 <= a1 }

func typeMatches(outer, inner int32) bool {
	return outer == policyrules.AnyType || outer == inner
}

func portOverlap(a, b wire.Port) bool {
	if a.Protocol != b.Protocol {
		return false
	}
	switch a.Protocol {
	case policyrules.ProtocolICMP:
		return (typeMatches(a.ICMPType, b.ICMPType) || typeMatches(b.ICMPType, a.ICMPType)) &&
			(typeMatches(a.ICMPCode, b.ICMPCode) || typeMatches(b.ICMPCode, a.ICMPCode))
	case policyrules.ProtocolIGMP:
		return typeMatches(a.IGMPType, b.IGMPType) || typeMatches(b.IGMPType, a.IGMPType)
	}
	a0, a1 := portRange(a.Port, a.EndPort)
	b0, b1 := portRange(b.Port, b.EndPort)
	s0, s1 := portRange(a.SourcePort, a.SourceEndPort)
	t0, t1 := portRange(b.SourcePort, b.SourceEndPort)
	return rangesOverlap(a0, a1, b0, b1) && rangesOverlap(s0, s1, t0, t1)
}

func portsOverlap(a, b []wire.Port) bool {
	if len(a) == 0 || len(b) == 0 {
		return true
	}
	for _, x := range a {
		for _, y := range b {
			if portOverlap(x, y) {
				return true
			}
		}
	}
	return false
}

func portCovers(o, i wire.Port) bool {
	if o.Protocol != i.Protocol {
		return false
	}
	switch o.Protocol {
	case policyrules.ProtocolICMP:
		return typeMatches(o.ICMPType, i.ICMPType) && typeMatches(o.ICMPCode, i.ICMPCode)
	case policyrules.ProtocolIGMP:
		return typeMatches(o.IGMPType, i.IGMPType) && (!o.GroupAddress.IsValid() || o.GroupAddress == i.GroupAddress)
	}
	o0, o1 := portRange(o.Port, o.EndPort)
	i0, i1 := portRange(i.Port, i.EndPort)
	s0, s1 := portRange(o.SourcePort, o.SourceEndPort)
	t0, t1 := portRange(i.SourcePort, i.SourceEndPort)
	return o0 <= i0 && i1 <= o1 && s0 <= t0 && t1 <= s1
}

// portsCover reports whether every port of inner is matched by outer.
func portsCover(outer, inner []wire.Port) bool {
	if len(outer) == 0 {
		return true
	}
	if len(inner) == 0 {
		return false
	}
	for _, i := range inner {
		if !slices.ContainsFunc(outer, func(o wire.Port) bool { return portCovers(o, i) }) {
			return false
		}
	}
	return true
}

// overlaps reports whether two rules match some traffic of a family in
// common.
func overlaps(a, b *wire.Rule, v6 bool) bool {
	return portsOverlap(a.Ports, b.Ports) && peersOverlap(familyPeers(a, v6), familyPeers(b, v6))
}

// coversRule reports whether outer matches all the traffic of a family
// that inner matches.
func coversRule(outer, inner *wire.Rule, v6 bool) bool {
	if !portsCover(outer.Ports, inner.Ports) {
		return false
	}
	op := familyPeers(outer, v6)
	for _, p := range familyPeers(inner, v6) {
		if !slices.ContainsFunc(op, func(o netip.Prefix) bool { return covers(o, p) }) {
			return false
		}
	}
	return true
}

func denies(a policyrules.Action) bool {
	return a == policyrules.ActionDrop || a == policyrules.ActionReject
}

// isDenyAll reports whether a rule denies every flow of a family.
func isDenyAll(r *wire.Rule, v6 bool) bool {
	if !denies(r.Action) || len(r.Ports) > 0 {
		return false
	}
	all := familyAll(v6)
	return slices.ContainsFunc(familyPeers(r, v6), func(p netip.Prefix) bool { return p == all })
}
