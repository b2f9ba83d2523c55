package vmagent

import (
	"fmt"
	"net/netip"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// family is an IP version as nftables' meta nfproto spells it.
type family byte

const (
	ipv4 family = unix.NFPROTO_IPV4
	ipv6 family = unix.NFPROTO_IPV6
)

// match is the expressions that select some traffic, for one IP family
// (anyFamily when the match does not depend on it) and one protocol (""
// for every protocol).
type match struct {
	family   family
	protocol policyrules.Protocol
	exprs    []expr.Any
}

const anyFamily family = 0

// addressField is which address a rule compares: the source (peers of
// ingress rules) or the destination (peers of egress rules).
type addressField int

const (
	sourceAddress addressField = iota
	destinationAddress
)

// addressOffset returns where an address field sits in the network header.
func addressOffset(f family, field addressField) (offset, length uint32) {
	if f == ipv4 {
		if field == sourceAddress {
			return 12, 4
		}
		return 16, 4
	}
	if field == sourceAddress {
		return 8, 16
	}
	return 24, 16
}

// addressMatches returns one match per IP family that prefixes hold: the
// field is in one of the prefixes. Several prefixes become an anonymous
// interval set.
func (b *builder) addressMatches(prefixes []netip.Prefix, field addressField) []match {
	var v4, v6 []netip.Prefix
	for _, p := range prefixes {
		if p.Addr().Is4() {
			v4 = append(v4, p)
		} else {
			v6 = append(v6, p)
		}
	}
	var out []match
	for _, fp := range []struct {
		family   family
		prefixes []netip.Prefix
	}{{ipv4, v4}, {ipv6, v6}} {
		if len(fp.prefixes) == 0 {
			continue
		}
		offset, length := addressOffset(fp.family, field)
		exprs := []expr.Any{
			&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{byte(fp.family)}},
			&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: offset, Len: length},
		}
		if len(fp.prefixes) == 1 {
			exprs = append(exprs, prefixCompare(fp.prefixes[0], length)...)
		} else {
			exprs = append(exprs, b.prefixSet(fp.family, fp.prefixes))
		}
		out = append(out, match{family: fp.family, exprs: exprs})
	}
	return out
}

// prefixCompare compares register 1 with one prefix.
func prefixCompare(p netip.Prefix, length uint32) []expr.Any {
	p = p.Masked()
	if p.Bits() == p.Addr().BitLen() {
		return []expr.Any{&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: p.Addr().AsSlice()}}
	}
	mask := make([]byte, length)
	for i := range p.Bits() {
		mask[i/8] |= 0x80 >> (i % 8)
	}
	return []expr.Any{
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: length, Mask: mask, Xor: make([]byte, length)},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: p.Addr().AsSlice()},
	}
}

// prefixSet returns the lookup of register 1 in a set of prefixes. Equal
// lists share one named, constant interval set, added to the batch the
// first time.
func (b *builder) prefixSet(f family, prefixes []netip.Prefix) expr.Any {
	key := fmt.Sprint(f, prefixes)
	set := b.sets[key]
	if set == nil {
		keyType := nftables.TypeIPAddr
		if f == ipv6 {
			keyType = nftables.TypeIP6Addr
		}
		set = &nftables.Set{Table: b.table, Name: fmt.Sprintf("peers-%d", len(b.sets)), Constant: true, Interval: true, KeyType: keyType}
		if err := b.conn.AddSet(set, intervalElements(prefixes)); err != nil {
			b.fail(fmt.Errorf("adding set %s: %w", set.Name, err))
		}
		b.sets[key] = set
	}
	return &expr.Lookup{SourceRegister: 1, SetName: set.Name, SetID: set.ID}
}

// intervalElements turns sorted prefixes into the elements of an interval
// set: each range is its first address and, flagged as an interval end,
// the address after its last. Adjacent ranges are joined, as an interval
// set cannot hold an end and a start at the same address.
func intervalElements(prefixes []netip.Prefix) []nftables.SetElement {
	type span struct{ first, last netip.Addr }
	var spans []span
	for _, p := range prefixes {
		p = p.Masked()
		s := span{first: p.Addr(), last: lastAddr(p)}
		if n := len(spans); n > 0 && (spans[n-1].last.Next() == s.first || spans[n-1].last.Compare(s.first) >= 0) {
			if s.last.Compare(spans[n-1].last) > 0 {
				spans[n-1].last = s.last
			}
			continue
		}
		spans = append(spans, s)
	}
	var out []nftables.SetElement
	for _, s := range spans {
		out = append(out, nftables.SetElement{Key: s.first.AsSlice()})
		if end := s.last.Next(); end.IsValid() {
			out = append(out, nftables.SetElement{Key: end.AsSlice(), IntervalEnd: true})
		}
	}
	return out
}

// lastAddr returns the last address of a prefix.
func lastAddr(p netip.Prefix) netip.Addr {
	raw := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(raw)*8; i++ {
		raw[i/8] |= 0x80 >> (i % 8)
	}
	addr, _ := netip.AddrFromSlice(raw)
	return addr
}

// portMatches returns the matches of one Port for traffic of family f
// (anyFamily: the rule matches every address). ICMP becomes ICMP for IPv4
// and ICMPv6 for IPv6; IGMP exists for IPv4 only.
func portMatches(p wire.Port, f family) []match {
	switch p.Protocol {
	case policyrules.ProtocolICMP:
		var out []match
		for _, fam := range familiesOf(f) {
			proto := byte(unix.IPPROTO_ICMP)
			if fam == ipv6 {
				proto = unix.IPPROTO_ICMPV6
			}
			exprs := append(familyCheck(fam, f), l4proto(proto)...)
			exprs = append(exprs, transportByte(0, p.ICMPType)...)
			exprs = append(exprs, transportByte(1, p.ICMPCode)...)
			out = append(out, match{family: fam, protocol: p.Protocol, exprs: exprs})
		}
		return out
	case policyrules.ProtocolIGMP:
		if f == ipv6 {
			return nil
		}
		exprs := append(familyCheck(ipv4, f), l4proto(unix.IPPROTO_IGMP)...)
		exprs = append(exprs, transportByte(0, p.IGMPType)...)
		if p.GroupAddress.IsValid() && p.GroupAddress.Is4() {
			exprs = append(exprs,
				&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 4, Len: 4},
				&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: p.GroupAddress.AsSlice()})
		}
		return []match{{family: ipv4, protocol: p.Protocol, exprs: exprs}}
	}
	proto := map[policyrules.Protocol]byte{
		policyrules.ProtocolTCP: unix.IPPROTO_TCP, policyrules.ProtocolUDP: unix.IPPROTO_UDP,
		policyrules.ProtocolSCTP: unix.IPPROTO_SCTP,
	}[p.Protocol]
	if proto == 0 {
		return nil
	}
	exprs := l4proto(proto)
	exprs = append(exprs, portRange(2, p.Port, p.EndPort)...)
	exprs = append(exprs, portRange(0, p.SourcePort, p.SourceEndPort)...)
	return []match{{family: f, protocol: p.Protocol, exprs: exprs}}
}

// familiesOf returns the families a match of family f covers.
func familiesOf(f family) []family {
	if f == anyFamily {
		return []family{ipv4, ipv6}
	}
	return []family{f}
}

// familyCheck returns the nfproto check that narrows traffic of family
// have (anyFamily: not checked yet) to want.
func familyCheck(want, have family) []expr.Any {
	if have == want {
		return nil
	}
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{byte(want)}},
	}
}

func l4proto(proto byte) []expr.Any {
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{proto}},
	}
}

// transportByte compares one byte of the transport header (an ICMP or
// IGMP type or code) unless v is AnyType.
func transportByte(offset uint32, v int32) []expr.Any {
	if v == policyrules.AnyType || v < 0 || v > 255 {
		return nil
	}
	return []expr.Any{
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: offset, Len: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{byte(v)}},
	}
}

// portRange compares the 16-bit port at offset of the transport header
// (0: source, 2: destination) with first..last; first 0 is every port.
func portRange(offset uint32, first, last int32) []expr.Any {
	if first <= 0 {
		return nil
	}
	if last < first {
		last = first
	}
	load := &expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: offset, Len: 2}
	if first == last {
		return []expr.Any{load, &expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binaryutil.BigEndian.PutUint16(uint16(first))}}
	}
	return []expr.Any{load, &expr.Range{Op: expr.CmpOpEq, Register: 1,
		FromData: binaryutil.BigEndian.PutUint16(uint16(first)), ToData: binaryutil.BigEndian.PutUint16(uint16(last))}}
}
