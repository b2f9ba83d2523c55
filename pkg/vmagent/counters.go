package vmagent

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"github.com/google/nftables/userdata"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// Counts are the packets and bytes rules decided.
type Counts struct {
	Packets, Bytes uint64
}

// RuleCounts are counts by rule.
type RuleCounts map[wire.RuleKey]Counts

// Add adds other into c.
func (c RuleCounts) Add(other RuleCounts) {
	for k, v := range other {
		sum := c[k]
		sum.Packets += v.Packets
		sum.Bytes += v.Bytes
		c[k] = sum
	}
}

// List returns the counts in a stable order, as reported.
func (c RuleCounts) List() []wire.RuleCount {
	out := make([]wire.RuleCount, 0, len(c))
	for k, v := range c {
		out = append(out, wire.RuleCount{RuleKey: k, Packets: v.Packets, Bytes: v.Bytes})
	}
	slices.SortFunc(out, func(a, b wire.RuleCount) int { return compareKeys(a.RuleKey, b.RuleKey) })
	return out
}

func compareKeys(a, b wire.RuleKey) int {
	return cmp.Or(cmp.Compare(a.Policy.Kind, b.Policy.Kind), cmp.Compare(a.Policy.Namespace, b.Policy.Namespace),
		cmp.Compare(a.Policy.Name, b.Policy.Name), cmp.Compare(a.Direction, b.Direction), cmp.Compare(a.Index, b.Index),
		cmp.Compare(a.Name, b.Name), cmp.Compare(a.Action, b.Action))
}

// countsOf turns reported counts back into RuleCounts.
func countsOf(list []wire.RuleCount) RuleCounts {
	out := RuleCounts{}
	for _, c := range list {
		out.Add(RuleCounts{c.RuleKey: {Packets: c.Packets, Bytes: c.Bytes}})
	}
	return out
}

// Counter is a Firewall whose rules count what they decide.
type Counter interface {
	// Counters returns what the rules in force counted since they were
	// put in force.
	Counters() (RuleCounts, error)
}

// ruleComment is the comment of the nftables rules of a compiled rule: the
// policy and rule for whoever reads `nft list ruleset`, then, in
// parentheses, the rest of the key its counters are summed under.
func ruleComment(r *wire.Rule) string {
	return fmt.Sprintf("%s:%s/%s/%s (%s %d %s)", r.Policy.Kind, r.Policy.Namespace, r.Policy.Name, r.Name,
		r.Direction, r.RuleIndex, r.Action)
}

// parseComment returns the key of a rule's comment; false for the rules
// that are not a compiled rule's (the base chains', the jumps).
func parseComment(c string) (wire.RuleKey, bool) {
	open := strings.LastIndex(c, " (")
	if open < 0 || !strings.HasSuffix(c, ")") {
		return wire.RuleKey{}, false
	}
	head, tail := c[:open], strings.Fields(c[open+2:len(c)-1])
	kind, rest, ok := strings.Cut(head, ":")
	if !ok || len(tail) != 3 {
		return wire.RuleKey{}, false
	}
	parts := strings.SplitN(rest, "/", 3)
	index, err := strconv.ParseInt(tail[1], 10, 32)
	if len(parts) != 3 || err != nil {
		return wire.RuleKey{}, false
	}
	return wire.RuleKey{Policy: wire.PolicyRef{Kind: kind, Namespace: parts[0], Name: parts[1]}, Name: parts[2],
		Direction: policyrules.Direction(tail[0]), Index: int32(index), Action: policyrules.Action(tail[2])}, true
}

// Counters implements Counter: it reads the counter of every rule of the
// table and sums them by the rule they were rendered from. A table that
// does not exist counted nothing.
func (n *NFTables) Counters() (RuleCounts, error) {
	conn, err := n.conn()
	if err != nil {
		return nil, err
	}
	return readCounters(conn, n.table())
}

func readCounters(conn *nftables.Conn, table *nftables.Table) (RuleCounts, error) {
	chains, err := conn.ListChainsOfTableFamily(table.Family)
	if err != nil {
		return nil, fmt.Errorf("listing the chains of nftables table %s: %w", table.Name, err)
	}
	out := RuleCounts{}
	for _, c := range chains {
		if c.Table.Name != table.Name {
			continue
		}
		rules, err := conn.GetRules(table, c)
		if errors.Is(err, syscall.ENOENT) {
			continue // replaced since it was listed
		}
		if err != nil {
			return nil, fmt.Errorf("reading the rules of chain %s: %w", c.Name, err)
		}
		for _, r := range rules {
			comment, _ := userdata.GetString(r.UserData, userdata.TypeComment)
			key, ok := parseComment(comment)
			if !ok {
				continue
			}
			for _, e := range r.Exprs {
				if ctr, ok := e.(*expr.Counter); ok {
					out.Add(RuleCounts{key: {Packets: ctr.Packets, Bytes: ctr.Bytes}})
				}
			}
		}
	}
	return out, nil
}
