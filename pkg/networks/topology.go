package networks

import (
	"net/netip"
	"slices"
	"strings"
)

// Network is one routing domain of the member: its name, its private
// ranges and the networks flat-connected to it.
type Network struct {
	Name     string
	Prefixes []netip.Prefix
	Flat     []Flat
}

// Flat is a network connected without NAT. Prefixes are its ranges as the
// connection declares them; the ranges of a Network of the same name in the
// Topology take precedence.
type Flat struct {
	Network  string
	Prefixes []netip.Prefix
	Via      string
}

// Topology is every network a member knows: its own (cluster, VPCs and
// VNets it imports, declared sites) with their flat connections.
type Topology struct {
	byName map[string]*Network
	// local are the ranges of every network of the member, sorted.
	local []named
}

// named is a range and the network it belongs to.
type named struct {
	network string
	prefix  netip.Prefix
}

// NewTopology indexes the member's networks. A later network of the same
// name as an earlier one is ignored.
func NewTopology(nets []Network) *Topology {
	t := &Topology{byName: make(map[string]*Network, len(nets))}
	for i := range nets {
		n := &nets[i]
		if _, dup := t.byName[n.Name]; dup || n.Name == "" {
			continue
		}
		t.byName[n.Name] = n
		for _, p := range n.Prefixes {
			t.local = append(t.local, named{network: n.Name, prefix: p.Masked()})
		}
	}
	sortNamed(t.local)
	return t
}

// Network returns the member's network of that name.
func (t *Topology) Network(name string) (*Network, bool) {
	if t == nil {
		return nil, false
	}
	n, ok := t.byName[name]
	return n, ok
}

// View is what an enforcement point in network sees. The empty name (an
// entity in no known network) sees no network flat: only public and
// egress addresses reach it.
func (t *Topology) View(network string) *View {
	v := &View{network: network}
	if t == nil {
		return v
	}
	v.local = t.local
	own, ok := t.byName[network]
	if !ok {
		return v
	}
	v.visible = append(v.visible, rangesOf(own.Name, own.Prefixes)...)
	v.flat = map[string]string{own.Name: ""}
	for _, f := range own.Flat {
		prefixes := f.Prefixes
		if n, ok := t.byName[f.Network]; ok {
			prefixes = n.Prefixes
		}
		if f.Network == own.Name || len(prefixes) == 0 {
			continue // a network of unknown ranges is not flat: nothing would tell its hosts from others
		}
		v.flat[f.Network] = f.Via
		v.visible = append(v.visible, rangesOf(f.Network, prefixes)...)
	}
	sortNamed(v.visible)
	v.ambiguous = overlaps(v.visible)
	return v
}

func rangesOf(network string, prefixes []netip.Prefix) []named {
	out := make([]named, 0, len(prefixes))
	for _, p := range prefixes {
		out = append(out, named{network: network, prefix: p.Masked()})
	}
	return out
}

func sortNamed(list []named) {
	slices.SortFunc(list, func(a, b named) int {
		if c := a.prefix.Addr().Compare(b.prefix.Addr()); c != 0 {
			return c
		}
		if c := a.prefix.Bits() - b.prefix.Bits(); c != 0 {
			return c
		}
		return strings.Compare(a.network, b.network)
	})
}

// overlaps returns the pairs of ranges of different networks that overlap,
// as "a (p) and b (q)" descriptions, sorted.
func overlaps(list []named) []Overlap {
	var out []Overlap
	for i := range list {
		for j := i + 1; j < len(list); j++ {
			a, b := list[i], list[j]
			if a.network != b.network && a.prefix.Overlaps(b.prefix) {
				out = append(out, Overlap{A: a.network, APrefix: a.prefix, B: b.network, BPrefix: b.prefix})
			}
		}
	}
	return out
}

// Overlap is two networks visible from one point whose ranges overlap:
// addresses in the overlap are ambiguous and never used.
type Overlap struct {
	A, B             string
	APrefix, BPrefix netip.Prefix
}
