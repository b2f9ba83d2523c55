package sgtranslate

import (
	"net/netip"

	"k8s.io/apimachinery/pkg/types"

	"antreaplus.io/antreaplus/pkg/policycompiler"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// Builders of rules for the tests: rule(in, allow, from("10.0.0.0/8"), tcp(80)).

var (
	in    = policycompiler.DirectionIngress
	out   = policycompiler.DirectionEgress
	allow = policycompiler.ActionAllow
	drop  = policycompiler.ActionDrop
	rej   = policycompiler.ActionReject
	pass  = policycompiler.ActionPass
)

type ruleOpt func(*wire.Rule)

func rule(d policycompiler.Direction, a policycompiler.Action, opts ...ruleOpt) wire.Rule {
	r := wire.Rule{Direction: d, Action: a, Tier: policycompiler.TierApplication, TierPriority: 250,
		Policy: wire.PolicyRef{Kind: string(policycompiler.KindNetworkPolicy), Namespace: "ns", Name: "web"}, AnyPeer: true}
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
	return func(r *wire.Rule) { r.Tier, r.TierPriority = policycompiler.TierBaseline, 253 }
}

func tcp(p int32) wire.Port { return wire.Port{Protocol: policycompiler.ProtocolTCP, Port: p} }
func tcpRange(p, end int32) wire.Port {
	return wire.Port{Protocol: policycompiler.ProtocolTCP, Port: p, EndPort: end}
}

var account = types.NamespacedName{Namespace: "tenant", Name: "aws"}

func nic(id, vpc string) *Interface {
	return &Interface{ID: id, Location: Location{Account: account, Region: "us-east-1", VPC: vpc}}
}

func endpoint(name string, i *Interface, rules ...wire.Rule) Endpoint {
	return Endpoint{Name: name, Interface: i, Rules: rules}
}
