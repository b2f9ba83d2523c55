package translate

import (
	"net/netip"
	"slices"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
)

// maxIPBlocks is the most ipBlocks a Group holds (the CRD's maxItems).
const maxIPBlocks = 1024

// normalize sorts addresses (IPv4 before IPv6) and removes duplicates.
func normalize(addrs []netip.Addr) []netip.Addr {
	slices.SortFunc(addrs, func(a, b netip.Addr) int { return a.Compare(b) })
	return slices.Compact(addrs)
}

// ipBlocks are the /32 (IPv4) or /128 (IPv6) blocks of normalised
// addresses.
func ipBlocks(addrs []netip.Addr) []antreav1beta1.IPBlock {
	if len(addrs) == 0 {
		return nil
	}
	out := make([]antreav1beta1.IPBlock, len(addrs))
	for i, a := range addrs {
		out[i] = antreav1beta1.IPBlock{CIDR: netip.PrefixFrom(a, a.BitLen()).String()}
	}
	return out
}

// chunks splits normalised addresses into the contents of Groups of at
// most maxIPBlocks; none still makes one (empty) Group.
func chunks(addrs []netip.Addr) [][]netip.Addr {
	if len(addrs) <= maxIPBlocks {
		return [][]netip.Addr{addrs}
	}
	var out [][]netip.Addr
	for len(addrs) > 0 {
		n := min(len(addrs), maxIPBlocks)
		out = append(out, addrs[:n])
		addrs = addrs[n:]
	}
	return out
}
