package networks

import "net/netip"

// Kind is what an address is to other networks.
type Kind int

const (
	// Private is routable in the entity's network and those flat to it.
	Private Kind = iota
	// Public reaches the entity from any network.
	Public
	// Egress is a source address of the entity's traffic into networks
	// not flat to its own (a NAT gateway's, or its own public IP).
	Egress
)

func (k Kind) String() string {
	switch k {
	case Public:
		return "public"
	case Egress:
		return "egress"
	}
	return "private"
}

// Address is one classified address of an entity.
type Address struct {
	IP   netip.Addr
	Kind Kind
	// Network of a Private address.
	Network string
	// Via of an Egress address: the NAT gateway, or "PublicIP".
	Via string
}

// Entity is a remote entity as the decision sees it.
type Entity struct {
	// Name identifies it in messages: "member-1/shop/web-1".
	Name string
	// Network its private addresses belong to.
	Network   string
	Addresses []Address
}

// Unclassified turns the endpoints of an entity whose member did not
// classify them into addresses: those outside the private and
// special-purpose ranges as public and egress, the others as private in no
// known network (never used across members).
func Unclassified(ips []netip.Addr) []Address {
	out := make([]Address, 0, len(ips))
	for _, ip := range ips {
		ip = ip.Unmap()
		if IsPrivate(ip) {
			out = append(out, Address{IP: ip, Kind: Private})
			continue
		}
		out = append(out, Address{IP: ip, Kind: Public}, Address{IP: ip, Kind: Egress, Via: "PublicIP"})
	}
	return out
}

// special are the ranges no address of another network is ever taken
// from: private (RFC 1918, RFC 6598 shared, ULA), loopback, link-local,
// unspecified and multicast.
var special = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("224.0.0.0/3"),
	netip.MustParsePrefix("::/127"),
	netip.MustParsePrefix("fc00::/7"),
	netip.MustParsePrefix("fe80::/10"),
	netip.MustParsePrefix("ff00::/8"),
}

// IsPrivate reports whether ip is in a private or special-purpose range,
// where the same address names different hosts in different networks.
func IsPrivate(ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, p := range special {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}
