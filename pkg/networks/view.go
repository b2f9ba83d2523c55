package networks

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// Direction is how a peer is used by a rule.
type Direction int

const (
	// Source: the peer of an ingress rule, seen as its traffic arrives.
	Source Direction = iota
	// Destination: the peer of an egress rule, as the point addresses it.
	Destination
)

// View is what one enforcement point sees (Topology.View).
type View struct {
	network string
	// visible are the ranges of the point's network and its flat peers.
	visible []named
	// flat are the visible networks (the point's own with via "").
	flat map[string]string
	// local are the ranges of every network of the member.
	local     []named
	ambiguous []Overlap
}

// Network is the name of the point's network.
func (v *View) Network() string { return v.network }

// Ambiguous are the overlapping ranges of networks visible from the point.
func (v *View) Ambiguous() []Overlap { return v.ambiguous }

// Flat reports whether private addresses of network reach the point
// unchanged (its own network, or one declared flat to it).
func (v *View) Flat(network string) bool {
	if network == "" {
		return false
	}
	_, ok := v.flat[network]
	return ok
}

// Verdict is what one entity contributes to a rule at one point.
type Verdict struct {
	// Addresses are the usable addresses, sorted and unique.
	Addresses []netip.Addr
	// Egress are the usable egress addresses (a subset of Addresses) and
	// what they are: a NAT gateway's id or PublicIP.
	Egress []EgressAddress
	// Rejected are addresses left out because they would name another
	// host here.
	Rejected []Rejection

	// What Reason explains, kept so that only the reasons shown are
	// written.
	view *View
	e    *Entity
	dir  Direction
	flat bool
}

// EgressAddress is a usable egress address and what it is.
type EgressAddress struct {
	IP  netip.Addr
	Via string
}

// Rejection is an address of a remote entity that is never put in a rule:
// it falls in a range (Prefix) of network Network, which is visible from
// the point (Visible: a flat peer, for a private address) or one of the
// member's.
type Rejection struct {
	IP      netip.Addr
	Kind    Kind
	Network string
	Prefix  netip.Prefix
	Visible bool
}

// Message says why the address is left out.
func (r Rejection) Message() string {
	if r.Kind == Private {
		return fmt.Sprintf("%s is also in network %s (%s), flat-connected here: ambiguous", r.IP, r.Network, r.Prefix)
	}
	return fmt.Sprintf("%s address %s is in network %s (%s) of this member: it would name a host there", r.Kind, r.IP, r.Network, r.Prefix)
}

// Reason says why nothing is usable, and what would fix it; "" when
// something is.
func (vd Verdict) Reason() string {
	if len(vd.Addresses) > 0 || vd.view == nil {
		return ""
	}
	return vd.view.why(vd.e, vd.dir, vd.flat, vd.Rejected)
}

// Decide returns what e contributes at the point in direction dir.
func (v *View) Decide(e *Entity, dir Direction) Verdict {
	vd := Verdict{view: v, e: e, dir: dir, flat: v.Flat(e.Network)}
	for _, a := range e.Addresses {
		if !wanted(a, dir, vd.flat, v) {
			continue
		}
		if r, ok := v.collision(a); ok {
			vd.Rejected = append(vd.Rejected, r)
			continue
		}
		vd.Addresses = append(vd.Addresses, a.IP)
		if a.Kind == Egress {
			vd.Egress = append(vd.Egress, EgressAddress{IP: a.IP, Via: a.Via})
		}
	}
	if len(vd.Addresses) > 1 {
		slices.SortFunc(vd.Addresses, func(a, b netip.Addr) int { return a.Compare(b) })
		vd.Addresses = slices.Compact(vd.Addresses)
	}
	return vd
}

// wanted tells whether a is an address the point would see of its entity
// in dir, before the collision checks.
func wanted(a Address, dir Direction, flat bool, v *View) bool {
	switch a.Kind {
	case Private:
		return v.Flat(a.Network)
	case Public:
		return dir == Destination
	case Egress:
		return dir == Source && !flat
	}
	return false
}

// collision finds the range a would name another host in at the point.
func (v *View) collision(a Address) (Rejection, bool) {
	if a.Kind == Private {
		for _, r := range v.visible {
			if r.network != a.Network && r.prefix.Contains(a.IP) {
				return Rejection{IP: a.IP, Kind: a.Kind, Network: r.network, Prefix: r.prefix, Visible: true}, true
			}
		}
		return Rejection{}, false
	}
	for _, list := range [][]named{v.local, v.visible} {
		for _, r := range list {
			if r.prefix.Contains(a.IP) {
				return Rejection{IP: a.IP, Kind: a.Kind, Network: r.network, Prefix: r.prefix}, true
			}
		}
	}
	return Rejection{}, false
}

// why explains an entity that contributes nothing, with what would fix it.
func (v *View) why(e *Entity, dir Direction, flat bool, rejected []Rejection) string {
	here := v.describeNetwork()
	if len(rejected) > 0 {
		msgs := make([]string, 0, len(rejected))
		for _, r := range rejected {
			msgs = append(msgs, r.Message())
		}
		return fmt.Sprintf("%s has no address usable in %s: %s", e.Name, here, strings.Join(msgs, "; "))
	}
	if len(e.Addresses) == 0 {
		return fmt.Sprintf("%s has no address", e.Name)
	}
	if flat {
		return fmt.Sprintf("%s has no private address in its network %s, which is flat-connected to %s", e.Name, e.Network, here)
	}
	where := "is in no known network"
	if e.Network != "" {
		where = "is in network " + e.Network + ", which is not connected to " + here + ","
	}
	if dir == Source {
		return fmt.Sprintf("%s %s and has no egress address: its traffic arrives with an address we do not know; "+
			"give it a public IP or a NAT gateway, or declare the peering (a flat connection in a Network)", e.Name, where)
	}
	return fmt.Sprintf("%s %s and has no public address: nothing here reaches it; "+
		"give it a public IP, or declare the peering (a flat connection in a Network)", e.Name, where)
}

func (v *View) describeNetwork() string {
	if v.network == "" {
		return "the enforcement point's network (unknown: its entities carry no " + "network.antreaplus.io/name label)"
	}
	return "network " + v.network
}
