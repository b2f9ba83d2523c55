package serviceexport

import (
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// families in the order the federation lists them: IPv4 first.
var families = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}

// Family is the IP family of an address; "" when it is not a plain IPv4 or
// IPv6 address (an IPv4-mapped IPv6 address or one with a zone is not).
func Family(addr string) corev1.IPFamily {
	a, err := netip.ParseAddr(addr)
	switch {
	case err != nil || a.Zone() != "":
		return ""
	case a.Is4():
		return corev1.IPv4Protocol
	case a.Is6() && !a.Is4In6():
		return corev1.IPv6Protocol
	}
	return ""
}

// Families are the families of the addresses, IPv4 first.
func (a Addresses) Families() []corev1.IPFamily {
	var out []corev1.IPFamily
	for _, e := range a.Endpoints {
		if f := Family(e.Address); f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return sortFamilies(out)
}

// sortFamilies returns the known families of fams once each, IPv4 first.
func sortFamilies(fams []corev1.IPFamily) []corev1.IPFamily {
	var out []corev1.IPFamily
	for _, f := range families {
		if slices.Contains(fams, f) {
			out = append(out, f)
		}
	}
	return out
}

// familiesOfIPs are the families of ips, in their order.
func familiesOfIPs(ips []string) []corev1.IPFamily {
	var out []corev1.IPFamily
	for _, ip := range ips {
		if f := Family(ip); f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// AddressTypeOf is the EndpointSlice address type of a family.
func AddressTypeOf(f corev1.IPFamily) discoveryv1.AddressType {
	if f == corev1.IPv6Protocol {
		return discoveryv1.AddressTypeIPv6
	}
	return discoveryv1.AddressTypeIPv4
}

func familyOfAddressType(t discoveryv1.AddressType) corev1.IPFamily {
	switch t {
	case discoveryv1.AddressTypeIPv4:
		return corev1.IPv4Protocol
	case discoveryv1.AddressTypeIPv6:
		return corev1.IPv6Protocol
	}
	return ""
}

// familyWords is "IPv4,IPv6", or "none".
func familyWords(fams []corev1.IPFamily) string {
	if len(fams) == 0 {
		return "none"
	}
	out := make([]string, len(fams))
	for i, f := range fams {
		out[i] = string(f)
	}
	return strings.Join(out, ",")
}
