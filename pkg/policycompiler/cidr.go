package policycompiler

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
)

// hostPrefix returns the single-address prefix (/32 or /128) of addr.
func hostPrefix(addr netip.Addr) netip.Prefix {
	addr = addr.Unmap()
	return netip.PrefixFrom(addr, addr.BitLen())
}

// ipBlockPrefixes returns the prefixes that cover cidr minus every except,
// sorted. Each except must lie inside cidr, as in Kubernetes NetworkPolicy.
func ipBlockPrefixes(cidr string, excepts []string) ([]netip.Prefix, error) {
	block, err := netip.ParsePrefix(cidr)
	if err != nil {
		return nil, fmt.Errorf("ipBlock cidr %q is not a CIDR: %w", cidr, err)
	}
	block = block.Masked()
	holes := make([]netip.Prefix, 0, len(excepts))
	for _, text := range excepts {
		hole, err := netip.ParsePrefix(text)
		if err != nil {
			return nil, fmt.Errorf("ipBlock except %q is not a CIDR: %w", text, err)
		}
		hole = hole.Masked()
		if !prefixCovers(block, hole) {
			return nil, fmt.Errorf("ipBlock except %s is not inside cidr %s", hole, block)
		}
		holes = append(holes, hole)
	}
	return subtractPrefixes(block, holes), nil
}

// prefixCovers reports whether every address of inner is in outer.
func prefixCovers(outer, inner netip.Prefix) bool {
	return outer.Addr().Is4() == inner.Addr().Is4() && outer.Bits() <= inner.Bits() && outer.Contains(inner.Addr())
}

// subtractPrefixes returns the fewest prefixes that cover block minus holes,
// sorted. Every hole must lie inside block.
func subtractPrefixes(block netip.Prefix, holes []netip.Prefix) []netip.Prefix {
	var out []netip.Prefix
	var walk func(p netip.Prefix)
	walk = func(p netip.Prefix) {
		partly := false
		for _, hole := range holes {
			if prefixCovers(hole, p) {
				return
			}
			partly = partly || prefixCovers(p, hole)
		}
		if !partly {
			out = append(out, p)
			return
		}
		low, high := halves(p)
		walk(low)
		walk(high)
	}
	walk(block)
	return out
}

// halves splits a masked prefix that is not a single address into its two
// halves.
func halves(p netip.Prefix) (netip.Prefix, netip.Prefix) {
	bits := p.Bits()
	raw := p.Addr().AsSlice()
	raw[bits/8] |= 0x80 >> (bits % 8)
	high, _ := netip.AddrFromSlice(raw)
	return netip.PrefixFrom(p.Addr(), bits+1), netip.PrefixFrom(high, bits+1)
}

func comparePrefixes(a, b netip.Prefix) int {
	return cmp.Or(a.Addr().Compare(b.Addr()), cmp.Compare(a.Bits(), b.Bits()))
}

// normalizePrefixes sorts prefixes in place and returns the canonical cover
// of their union: no prefix inside another, sibling prefixes merged into
// their parent. The result reuses the array of prefixes.
func normalizePrefixes(prefixes []netip.Prefix) []netip.Prefix {
	if len(prefixes) == 0 {
		return nil
	}
	for i := range prefixes {
		prefixes[i] = prefixes[i].Masked()
	}
	slices.SortFunc(prefixes, comparePrefixes)
	out := prefixes[:0]
	for _, p := range prefixes {
		// Kept prefixes are disjoint and sorted, so only the last one can
		// cover p, which starts at or after every kept prefix.
		if n := len(out); n > 0 && prefixCovers(out[n-1], p) {
			continue
		}
		out = append(out, p)
		for len(out) >= 2 {
			parent, ok := mergeSiblings(out[len(out)-2], out[len(out)-1])
			if !ok {
				break
			}
			out = append(out[:len(out)-2], parent)
		}
	}
	return slices.Clip(out)
}

// mergeSiblings returns the parent of a and b when they are its two halves.
func mergeSiblings(a, b netip.Prefix) (netip.Prefix, bool) {
	if a.Bits() != b.Bits() || a.Bits() == 0 || a == b {
		return netip.Prefix{}, false
	}
	parent := netip.PrefixFrom(a.Addr(), a.Bits()-1).Masked()
	if parent != netip.PrefixFrom(b.Addr(), b.Bits()-1).Masked() {
		return netip.Prefix{}, false
	}
	return parent, true
}
