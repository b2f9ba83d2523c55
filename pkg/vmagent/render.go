package vmagent

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"github.com/google/nftables/userdata"
	"golang.org/x/sys/unix"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// builder queues, on one nftables.Conn, the messages that replace the
// agent's table with one that enforces a View. Nothing reaches the kernel
// before conn.Flush, which sends them as one atomic batch.
type builder struct {
	conn  *nftables.Conn
	table *nftables.Table
	// rules counts the nftables rules queued.
	rules int
	// skipped are the endpoints that have no address to scope rules to.
	skipped []string
	// sets are the peer sets queued, by family and prefixes.
	sets map[string]*nftables.Set
	// noCounters leaves the counters out of every rule.
	noCounters bool
	err        error
}

func (b *builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// render queues the replacement of the table. Its layout:
//
//	chain input  (hook input, policy accept)
//	  ct state established,related accept; iifname lo accept
//	  ip daddr <addresses of endpoint i> goto ingress-i     (one per endpoint)
//	chain output (hook output, policy accept)
//	  ct state established,related accept; oifname lo accept
//	  ip saddr <addresses of endpoint i> goto egress-i
//	chain ingress-i / egress-i
//	  rules before the baseline tier (Pass: goto ingress-i-baseline)
//	  jump ingress-i-baseline
//	  rules after the baseline tier (Pass: accept)
//	chain ingress-i-baseline / egress-i-baseline
//	  baseline rules
//
// A packet that no rule decides falls back to the base chain's policy,
// accept: policyrules.DefaultAction.
func (b *builder) render(view *wire.View) {
	// Adding the table first makes the deletion valid when it does not
	// exist yet; the kernel applies all three in one transaction.
	b.conn.AddTable(b.table)
	b.conn.DelTable(b.table)
	b.conn.AddTable(b.table)
	accept := nftables.ChainPolicyAccept
	input := b.conn.AddChain(&nftables.Chain{Name: "input", Table: b.table, Type: nftables.ChainTypeFilter,
		Hooknum: nftables.ChainHookInput, Priority: nftables.ChainPriorityFilter, Policy: &accept})
	output := b.conn.AddChain(&nftables.Chain{Name: "output", Table: b.table, Type: nftables.ChainTypeFilter,
		Hooknum: nftables.ChainHookOutput, Priority: nftables.ChainPriorityFilter, Policy: &accept})
	b.baseRules(input, expr.MetaKeyIIFNAME)
	b.baseRules(output, expr.MetaKeyOIFNAME)
	if view == nil {
		return
	}
	for i, name := range view.Names() {
		ep := view.Endpoints[name]
		if len(ep.Addresses) == 0 {
			b.skipped = append(b.skipped, name)
			continue
		}
		var ingress, egress []wire.Rule
		for _, r := range ep.RuleList() {
			if r.Direction == policyrules.DirectionIngress {
				ingress = append(ingress, r)
			} else {
				egress = append(egress, r)
			}
		}
		b.endpoint(input, fmt.Sprintf("ingress-%d", i), name, ep.Addresses, destinationAddress, sourceAddress, ingress)
		b.endpoint(output, fmt.Sprintf("egress-%d", i), name, ep.Addresses, sourceAddress, destinationAddress, egress)
	}
}

// baseRules keeps established connections and loopback traffic.
func (b *builder) baseRules(chain *nftables.Chain, ifKey expr.MetaKey) {
	states := binaryutil.NativeEndian.PutUint32(expr.CtStateBitESTABLISHED | expr.CtStateBitRELATED)
	b.add(chain, "established", []expr.Any{
		&expr.Ct{Register: 1, Key: expr.CtKeySTATE},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4, Mask: states, Xor: make([]byte, 4)},
		&expr.Cmp{Op: expr.CmpOpNeq, Register: 1, Data: make([]byte, 4)},
		&expr.Counter{},
		&expr.Verdict{Kind: expr.VerdictAccept},
	})
	b.add(chain, "loopback", []expr.Any{
		&expr.Meta{Key: ifKey, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte("lo\x00")},
		&expr.Verdict{Kind: expr.VerdictAccept},
	})
}

// endpoint queues the chains of one endpoint and one direction, and the
// goto from the base chain. own is the address field that holds the
// endpoint's address, peer the one the rules' peers are compared with.
func (b *builder) endpoint(base *nftables.Chain, name, endpoint string, addresses []netip.Addr, own, peer addressField, rules []wire.Rule) {
	if len(rules) == 0 {
		return
	}
	chain := b.conn.AddChain(&nftables.Chain{Name: name, Table: b.table})
	first, last := baselineBlock(rules)
	baseline := ""
	if first < last {
		baseline = name + "-baseline"
		bc := b.conn.AddChain(&nftables.Chain{Name: baseline, Table: b.table})
		for i := first; i < last; i++ {
			b.rule(bc, &rules[i], peer, "")
		}
	}
	for i := range first {
		b.rule(chain, &rules[i], peer, baseline)
	}
	if baseline != "" {
		b.add(chain, "baseline tier", []expr.Any{&expr.Verdict{Kind: expr.VerdictJump, Chain: baseline}})
	}
	for i := last; i < len(rules); i++ {
		b.rule(chain, &rules[i], peer, "")
	}
	prefixes := make([]netip.Prefix, 0, len(addresses))
	for _, a := range addresses {
		prefixes = append(prefixes, netip.PrefixFrom(a, a.BitLen()))
	}
	for _, m := range b.addressMatches(prefixes, own) {
		b.add(base, endpoint, append(m.exprs, &expr.Verdict{Kind: expr.VerdictGoto, Chain: name}))
	}
}

// baselineBlock returns the range of the baseline tier's rules, which are
// contiguous because rules are in tier order.
func baselineBlock(rules []wire.Rule) (first, last int) {
	first = len(rules)
	for i := range rules {
		if rules[i].InBaselineTier() {
			first = i
			break
		}
	}
	last = first
	for last < len(rules) && rules[last].InBaselineTier() {
		last++
	}
	return first, last
}

// rule queues the nftables rules of one compiled rule: one per IP family
// of its peers and per port. baseline is the chain a Pass goes to ("" for
// none: the packet is accepted, as no rule decides it).
func (b *builder) rule(chain *nftables.Chain, r *wire.Rule, peer addressField, baseline string) {
	peers := []match{{family: anyFamily}}
	if !r.AnyPeer {
		peers = b.addressMatches(r.Peers, peer)
	}
	comment := ruleComment(r)
	for _, pm := range peers {
		ports := []match{{family: pm.family}}
		if len(r.Ports) > 0 {
			ports = nil
			for _, p := range r.Ports {
				ports = append(ports, portMatches(p, pm.family)...)
			}
		}
		for _, port := range ports {
			for _, v := range verdicts(r, port.protocol, baseline) {
				exprs := append(append(append([]expr.Any{}, pm.exprs...), port.exprs...), v...)
				b.add(chain, comment, exprs)
			}
		}
	}
}

// verdicts returns the ends of the rules that carry out r's action on
// traffic of protocol ("" for every protocol). A Reject answers TCP with a
// reset and everything else with ICMP administratively prohibited, so a
// Reject of every protocol becomes two rules.
func verdicts(r *wire.Rule, protocol policyrules.Protocol, baseline string) [][]expr.Any {
	var tail []expr.Any
	if r.EnableLogging {
		prefix := "antreaplus " + string(r.Action) + " " + r.LogLabel + ": "
		if len(prefix) > 127 {
			prefix = prefix[:127]
		}
		tail = append(tail, &expr.Log{Key: 1 << unix.NFTA_LOG_PREFIX, Data: []byte(prefix)})
	}
	tail = append(tail, &expr.Counter{})
	end := func(v expr.Any) []expr.Any { return append(append([]expr.Any{}, tail...), v) }
	switch r.Action {
	case policyrules.ActionAllow:
		return [][]expr.Any{end(&expr.Verdict{Kind: expr.VerdictAccept})}
	case policyrules.ActionDrop:
		return [][]expr.Any{end(&expr.Verdict{Kind: expr.VerdictDrop})}
	case policyrules.ActionPass:
		if baseline == "" {
			return [][]expr.Any{end(&expr.Verdict{Kind: expr.VerdictAccept})}
		}
		return [][]expr.Any{end(&expr.Verdict{Kind: expr.VerdictGoto, Chain: baseline})}
	}
	// Reject, and any action this agent does not know: fail closed.
	reset := &expr.Reject{Type: unix.NFT_REJECT_TCP_RST}
	prohibited := &expr.Reject{Type: unix.NFT_REJECT_ICMPX_UNREACH, Code: unix.NFT_REJECT_ICMPX_ADMIN_PROHIBITED}
	switch protocol {
	case policyrules.ProtocolTCP:
		return [][]expr.Any{end(reset)}
	case "":
		return [][]expr.Any{append(l4proto(unix.IPPROTO_TCP), end(reset)...), end(prohibited)}
	}
	return [][]expr.Any{end(prohibited)}
}

// add queues one rule, with a comment that shows in `nft list ruleset`.
func (b *builder) add(chain *nftables.Chain, comment string, exprs []expr.Any) {
	if b.noCounters {
		exprs = slices.DeleteFunc(slices.Clone(exprs), func(e expr.Any) bool {
			_, counter := e.(*expr.Counter)
			return counter
		})
	}
	b.conn.AddRule(&nftables.Rule{Table: b.table, Chain: chain, Exprs: exprs,
		UserData: userdata.AppendString(nil, userdata.TypeComment, comment)})
	b.rules++
}
