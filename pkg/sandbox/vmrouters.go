package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/internal/netns"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
)

// The routed networks (sandbox up --networks, docs/networks.md): the VMs of
// the local cloud's edge networks (VPCs and VNets tagged env=edge, whose
// ranges overlap) are not on the sandbox's one bridge. Each edge network
// is a router namespace: a bridge its VMs attach to (the router is their
// default gateway) and an uplink to the "internet" namespace, where every
// public address is routed to the router that owns it. The router's
// nftables do what the cloud does: a VM with a public IP is reached at it
// and leaves with it (1:1 NAT), every other VM leaves through the NAT
// gateway's address, and nothing else comes in.

// edgeEnv is the env tag of the VMs of routed networks.
const edgeEnv = "edge"

// RoutedNetwork is an edge network and its router.
type RoutedNetwork struct {
	// Name is the network's name (aws.vpc-..., azure.edge-...).
	Name string `json:"name"`
	// NetNS is the router's namespace.
	NetNS string `json:"netns"`
	// Gateway is the router's address on the VMs' link, PrefixLen its
	// prefix length.
	Gateway   string `json:"gateway"`
	PrefixLen int    `json:"prefixLen"`
	// Index numbers the router's uplink: 100.64.<index>.0/30.
	Index int `json:"index"`
	// NAT are the NAT gateway's addresses the VMs without a public IP
	// leave with.
	NAT []string `json:"nat,omitempty"`
	// Public are the VMs' public addresses.
	Public []PublicAddress `json:"public,omitempty"`
}

// PublicAddress is a VM's public IP and the private address it reaches.
type PublicAddress struct {
	Public  string `json:"public"`
	Private string `json:"private"`
}

// uplink is the router's end of its uplink (the internet's is inetPort).
const uplink = "up0"

// inetNetNS is the namespace of the sandbox's internet.
func inetNetNS(base string) string { return base + "-inet" }

// inetPort is the internet's end of a router's uplink.
func (r RoutedNetwork) inetPort() string { return fmt.Sprintf("u-%d", r.Index) }

// linkAddr is the address of the internet's (host 1) or the router's (2)
// end of the uplink.
func (r RoutedNetwork) linkAddr(host int) string { return fmt.Sprintf("100.64.%d.%d", r.Index, host) }

// planRouted gives the VMs of edge networks their network and gateway,
// and returns the networks' routers: VMs with a public IP are 1:1 NATed,
// the others leave through their NAT gateway (egressIPs).
func planRouted(base string, vms []AgentVM, invs []vmInventory) []RoutedNetwork {
	nics := map[string]map[string]cloudv1alpha1.NetworkInterface{} // cluster -> VM object -> primary NIC
	for _, inv := range invs {
		nics[inv.member.Cluster] = map[string]cloudv1alpha1.NetworkInterface{}
		for _, n := range inv.nics {
			if n.Spec.Primary {
				nics[inv.member.Cluster][n.Spec.VirtualMachine] = n
			}
		}
	}
	byName := map[string]*RoutedNetwork{}
	var names []string
	for i := range vms {
		vm := &vms[i]
		if vm.Network == "" {
			continue
		}
		r := byName[vm.Network]
		if r == nil {
			r = &RoutedNetwork{Name: vm.Network, NetNS: routerNetNS(base, vm.Network)}
			byName[vm.Network] = r
			names = append(names, vm.Network)
		}
		nic := nics[vm.Cluster][vm.Object]
		if len(nic.Spec.PublicIPs) > 0 {
			r.Public = append(r.Public, PublicAddress{Public: nic.Spec.PublicIPs[0], Private: vm.IP})
		}
		if nic.Spec.NATGatewayID != "" {
			for _, ip := range nic.Spec.EgressIPs {
				if !slices.Contains(r.NAT, ip) {
					r.NAT = append(r.NAT, ip)
				}
			}
		}
	}
	slices.Sort(names)
	out := make([]RoutedNetwork, 0, len(names))
	for k, name := range names {
		r := byName[name]
		r.Index = k + 1
		var members []AgentVM
		for _, vm := range vms {
			if vm.Network == name {
				members = append(members, vm)
			}
		}
		r.PrefixLen = commonPrefixLen(members)
		first := netip.MustParseAddr(members[0].IP)
		r.Gateway = lastHost(netip.PrefixFrom(first, r.PrefixLen).Masked()).String()
		for i := range vms {
			if vms[i].Network == name {
				vms[i].Gateway, vms[i].PrefixLen = r.Gateway, r.PrefixLen
			}
		}
		slices.SortFunc(r.Public, func(a, b PublicAddress) int { return strings.Compare(a.Public, b.Public) })
		slices.Sort(r.NAT)
		out = append(out, *r)
	}
	return out
}

// routedNetwork is the network of an agented VM played behind a router
// (its VPC is an edge network), "" for one on the sandbox's bridge.
func routedNetwork(vm *cloudv1alpha1.VirtualMachine) string {
	if vm.Spec.Tags["env"] != edgeEnv {
		return ""
	}
	return inventory.NetworkName(string(vm.Spec.Provider), vm.Spec.VPCID)
}

// routerNetNS is the namespace of a network's router.
func routerNetNS(base, network string) string {
	sum := sha256.Sum256([]byte(network))
	return base + "-r" + hex.EncodeToString(sum[:3])
}

// lastHost is the last usable IPv4 address of p (its broadcast less one).
func lastHost(p netip.Prefix) netip.Addr {
	a := p.Addr().As4()
	host := uint32(1)<<(32-p.Bits()) - 2
	n := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	n += host
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
}

// routerRuleset is the router's nftables ruleset: 1:1 NAT for the public
// addresses, source NAT to the NAT gateway's for the rest.
func (r RoutedNetwork) routerRuleset() string {
	var pre, post strings.Builder
	for _, p := range r.Public {
		fmt.Fprintf(&pre, "    iifname %q ip daddr %s dnat to %s\n", uplink, p.Public, p.Private)
		fmt.Fprintf(&post, "    oifname %q ip saddr %s snat to %s\n", uplink, p.Private, p.Public)
	}
	if len(r.NAT) > 0 {
		fmt.Fprintf(&post, "    oifname %q snat to %s\n", uplink, r.NAT[0])
	}
	return fmt.Sprintf(`table ip antreaplus_sandbox_router
delete table ip antreaplus_sandbox_router
table ip antreaplus_sandbox_router {
  chain prerouting {
    type nat hook prerouting priority dstnat; policy accept;
%s  }
  chain postrouting {
    type nat hook postrouting priority srcnat; policy accept;
%s  }
}
`, pre.String(), post.String())
}

// publicAddresses are the addresses the internet routes to the router.
func (r RoutedNetwork) publicAddresses() []string {
	out := slices.Clone(r.NAT)
	for _, p := range r.Public {
		out = append(out, p.Public)
	}
	return out
}

// ensureInternet creates the internet namespace, forwarding, unless it
// exists.
func ensureInternet(base string) error {
	name := inetNetNS(base)
	if netns.Exists(name) {
		return nil
	}
	ns, err := netns.Create(name)
	if err != nil {
		return err
	}
	defer func() { _ = ns.Close() }()
	return ns.Run("sysctl", "-qw", "net.ipv4.ip_forward=1")
}

// createRouter (re)creates a network's router: its namespace with the
// VMs' bridge and the gateway address, and its uplink to the internet.
func createRouter(base string, r RoutedNetwork) error {
	if err := deleteNetNS(r.NetNS); err != nil {
		return err
	}
	inet, err := netns.Open(inetNetNS(base))
	if err != nil {
		return err
	}
	defer func() { _ = inet.Close() }()
	ns, err := netns.Create(r.NetNS)
	if err != nil {
		return err
	}
	defer func() { _ = ns.Close() }()
	steps := []func() error{
		func() error { return ns.Bridge(vmBridge) },
		func() error { return ns.AddAddress(vmBridge, fmt.Sprintf("%s/%d", r.Gateway, r.PrefixLen)) },
		func() error {
			_, _ = netns.IP("-n", inetNetNS(base), "link", "del", r.inetPort()) // a leftover of an earlier router
			return inet.Veth(r.inetPort(), ns, uplink)
		},
		func() error { return inet.AddAddress(r.inetPort(), r.linkAddr(1)+"/30") },
		func() error { return ns.AddAddress(uplink, r.linkAddr(2)+"/30") },
		func() error { return ns.Run("ip", "route", "add", "default", "via", r.linkAddr(1)) },
		func() error { return ns.Run("sysctl", "-qw", "net.ipv4.ip_forward=1") },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("router of network %s: %w", r.Name, err)
		}
	}
	return nil
}

// configureRouter routes the router's public addresses to it from the
// internet and applies its NAT ruleset (both idempotent).
func configureRouter(base string, r RoutedNetwork) error {
	for _, a := range r.publicAddresses() {
		if _, err := netns.IP("-n", inetNetNS(base), "route", "replace", a+"/32", "via", r.linkAddr(2)); err != nil {
			return fmt.Errorf("router of network %s: the route of %s: %w", r.Name, a, err)
		}
	}
	ns, err := netns.Open(r.NetNS)
	if err != nil {
		return err
	}
	defer func() { _ = ns.Close() }()
	cmd := ns.Command("nft", "-f", "-")
	cmd.Stdin = strings.NewReader(r.routerRuleset())
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("router of network %s: nft: %w: %s", r.Name, err, out)
	}
	return nil
}

// routerIntact reports whether a router's namespace has its bridge and
// uplink.
func routerIntact(r RoutedNetwork) bool {
	out, err := netns.IP("-n", r.NetNS, "-o", "addr", "show")
	return err == nil && strings.Contains(out, r.Gateway+"/") && strings.Contains(out, r.linkAddr(2)+"/")
}

// vmLink is the namespace whose bridge a VM attaches to: the sandbox's, or
// its network's router.
func vmLink(base string, vm AgentVM, routed []RoutedNetwork) string {
	for _, r := range routed {
		if r.Name == vm.Network {
			return r.NetNS
		}
	}
	return base
}
