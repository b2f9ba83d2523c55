package sgtranslate

import (
	"net/netip"

	"k8s.io/apimachinery/pkg/types"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// Builders of rules for the tests: rule(in, allow, from("10.0.0.0/8"), tcp(80)).

var (
	in    = policyrules.DirectionIngress
	out   = policyrules.DirectionEgress
	allow = policyrules.ActionAllow
	drop  = policyrules.ActionDrop
	rej   = policyrules.ActionReject
	pass  = policyrules.ActionPass
)

type ruleOpt func(*wire.Rule)

func rule(d policyrules.Direction, a policyrules.Action, opts ...ruleOpt) wire.Rule {
	r := wire.Rule{Direction: d, Action: a, Tier: policyrules.TierApplication, TierPriority: 250,
		Policy: wire.PolicyRef{Kind: string(policyrules.KindNetworkPolicy), Namespace: "ns", Name: "web"}, AnyPeer: true}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func peers(cidrs ...string) ruleOpt {
	return func(r *wire.Rule) {
		r.AnyPeer = false
		for _, c := range cidrs {
			r.Peers = append(r.Peers, netip.MustParsePrefix(c))
		}
	}
}

func ports(p ...wire.Port) ruleOpt { return func(r *wire.Rule) { r.Ports = append(r.Ports, p...) } }
func named(n string) ruleOpt       { return func(r *wire.Rule) { r.Name = n } }
func baseline() ruleOpt {
	return func(r *wire.Rule) { r.Tier, r.TierPriority = policyrules.TierBaseline, 253 }
}

func tcp(p int32) wire.Port { return wire.Port{Protocol: policyrules.ProtocolTCP, Port: p} }
func tcpRange(p, end int32) wire.Port {
	return wire.Port{Protocol: policyrules.ProtocolTCP, Port: p, EndPort: end}
}

var account = types.NamespacedName{Namespace: "tenant", Name: "aws"}

func nic(id, vpc string) *Interface {
	return &Interface{ID: id, Location: Location{Account: account, Region: "us-east-1", VPC: vpc}}
}

func endpoint(name string, i *Interface, rules ...wire.Rule) Endpoint {
	return Endpoint{Name: name, Interface: i, Rules: rules}
}
