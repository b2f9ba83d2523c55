package azure

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// This file plans a sync of NSGs and ASGs as a pure function of the spec
// and of what Azure holds; nsgread.go reads Azure and nsgapply.go runs the
// plan.
//
// The layout: one ASG per group of the spec, whose members are the
// interfaces the spec attaches the group to (every IP configuration of
// the interface); one NSG per interface with groups, holding the allow
// rules of each of its groups (the group's ASG as destination of inbound
// rules, as source of outbound ones) at priorities from 100, then a rule
// denying everything else in each direction at priority 4096, before
// Azure's default rules. Rules with the same ports are merged into one
// rule with several peers (Azure's augmented rules).

// Priorities of the managed rules.
const (
	firstPriority = 100
	denyPriority  = 4096
)

// nsgRule is a security rule of a managed NSG without its name and
// priority. local is the interface's side ("asg:<name>" or "*"), peers the
// other side: sorted CIDRs, "*", "asg:<managed ASG name>" or "id:<ASG id>",
// joined by commas.
type nsgRule struct {
	inbound   bool
	deny      bool
	protocol  string // Tcp, Udp, Icmp or *
	srcPorts  string // always * for managed rules
	ports     string // destination ports: *, 80, 80-90, joined by commas
	local     string
	peers     string
	peerCount int // address prefixes among peers
}

func (r nsgRule) String() string {
	dir, access := "out", "allow"
	if r.inbound {
		dir = "in"
	}
	if r.deny {
		access = "deny"
	}
	return fmt.Sprintf("%s %s %s %s %s peers %s", dir, access, r.protocol, r.ports, r.local, r.peers)
}

func compareRules(a, b nsgRule) int {
	return cmp.Or(compareBool(!a.inbound, !b.inbound), compareBool(a.deny, b.deny), strings.Compare(a.local, b.local),
		strings.Compare(a.protocol, b.protocol), strings.Compare(a.ports, b.ports), strings.Compare(a.peers, b.peers),
		strings.Compare(a.srcPorts, b.srcPorts))
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// denyRules end every managed NSG.
var denyRules = []nsgRule{
	{inbound: true, deny: true, protocol: "*", srcPorts: "*", ports: "*", local: "*", peers: "*"},
	{inbound: false, deny: true, protocol: "*", srcPorts: "*", ports: "*", local: "*", peers: "*"},
}

// nsgState is a managed NSG as Azure holds it; ordered is false when an
// allow rule comes after a deny rule of its direction.
type nsgState struct {
	id, name string
	rules    []nsgRule
	ordered  bool
}

type asgState struct{ id, name string }

// nicState is the security of a network interface: its NSG ("" for none,
// "nsg:<managed name>" or "id:<id>") and ASGs ("asg:<managed name>" or
// "id:<id>").
type nicState struct {
	id   string
	nsg  string
	asgs []string
}

// azState is what a sync reads: the managed ASGs and NSGs of the VNet by
// Azure name, and its interfaces by lowercased id.
type azState struct {
	asgs map[string]*asgState
	nsgs map[string]*nsgState
	nics map[string]*nicState
}

// nsgWant is the content a managed NSG must get, rules in priority order.
type nsgWant struct {
	name, nic      string
	rules          []nsgRule
	create         bool
	added, removed int // rules, against what Azure holds
}

// nicWant is the security an interface must get.
type nicWant struct {
	nsg  string
	asgs []string
}

// azPlan is the writes of one sync, in the order they run: create ASGs,
// put NSGs, put interfaces, delete stale NSGs, delete stale ASGs.
type azPlan struct {
	createASGs []asgWant
	putNSGs    []nsgWant
	nics       map[string]nicWant // by lowercased id
	deleteNSGs []*nsgState
	deleteASGs []*asgState
	unrealized []provider.Unrealized
}

type asgWant struct{ name, group string }

// azLimits are Azure's quotas the plan respects.
type azLimits struct {
	rulesPerNSG, prefixesPerNSG, asgsPerNSG, asgsPerNIC int
}

// groupRules are a group's normalised rules, by direction.
type groupRules struct{ ingress, egress []nsgRule }

func planNSGs(spec provider.SecurityGroupSpec, cur azState, lim azLimits) azPlan {
	p := azPlan{nics: map[string]nicWant{}}
	asgOf := p.wantedGroups(spec)
	realized := map[string]groupRules{}
	for _, g := range spec.Groups {
		_, wanted := asgOf[g.Name]
		if _, done := realized[g.Name]; !wanted || done {
			continue
		}
		if rules, ok := p.normaliseGroup(g, asgOf); ok {
			realized[g.Name] = rules
		}
	}
	for _, g := range spec.Groups {
		if _, ok := realized[g.Name]; ok && cur.asgs[asgOf[g.Name]] == nil && !slices.ContainsFunc(p.createASGs, func(a asgWant) bool { return a.group == g.Name }) {
			p.createASGs = append(p.createASGs, asgWant{name: asgOf[g.Name], group: g.Name})
		}
	}
	attachments := map[string][]string{}
	for nic, groups := range spec.Attachments {
		attachments[strings.ToLower(nic)] = groups
		if cur.nics[strings.ToLower(nic)] == nil {
			p.report(nic, "network interface not found in VNet %s", spec.VPCID)
		}
	}
	keepNSG := map[string]bool{}
	wantNSG := map[string]bool{}
	for _, key := range sortedKeys(cur.nics) {
		nic := cur.nics[key]
		name, keep := p.planInterface(spec.Prefix, nic, attachments[key], asgOf, realized, cur, lim)
		if keep {
			keepNSG[name] = true
		} else if name != "" {
			wantNSG[name] = true
		}
	}
	wantASG := map[string]bool{}
	for _, name := range asgOf {
		wantASG[name] = true
	}
	for _, name := range sortedKeys(cur.nsgs) {
		if !wantNSG[name] && !keepNSG[name] {
			p.deleteNSGs = append(p.deleteNSGs, cur.nsgs[name])
		}
	}
	for _, name := range sortedKeys(cur.asgs) {
		if !wantASG[name] {
			p.deleteASGs = append(p.deleteASGs, cur.asgs[name])
		}
	}
	return p
}

// wantedGroups checks the groups' names and returns the ASG name of each
// acceptable one.
func (p *azPlan) wantedGroups(spec provider.SecurityGroupSpec) map[string]string {
	asgOf := map[string]string{}
	byASG := map[string]string{}
	for _, g := range spec.Groups {
		name := asgName(g.Name)
		switch {
		case !strings.HasPrefix(g.Name, spec.Prefix):
			p.report(g.Name, "name does not start with the managed prefix %q", spec.Prefix)
		case asgOf[g.Name] != "":
			p.report(g.Name, "listed twice")
		case byASG[name] != "":
			p.report(g.Name, "its Azure name %s is the one of group %s", name, byASG[name])
		default:
			asgOf[g.Name], byASG[name] = name, g.Name
		}
	}
	return asgOf
}

func (p *azPlan) report(object, format string, args ...any) {
	p.unrealized = append(p.unrealized, provider.Unrealized{Object: object, Reason: fmt.Sprintf(format, args...)})
}

// normaliseGroup normalises a group's rules. A rule with an error refuses
// the whole group (reported, left as it is in Azure); a rule Azure cannot
// express (an ICMP type) is left out, so its traffic is denied, and
// reported.
func (p *azPlan) normaliseGroup(g provider.SecurityGroup, asgOf map[string]string) (groupRules, bool) {
	var errs, dropped []string
	norm := func(rules []provider.Rule, inbound bool) []nsgRule {
		out := []nsgRule{}
		for _, r := range rules {
			n, err := normaliseRule(r, inbound, "asg:"+asgOf[g.Name], asgOf)
			switch {
			case err != nil:
				errs = append(errs, err.Error())
			case n.protocol == "":
				dropped = append(dropped, fmt.Sprintf("%s type %d code %d", r.Protocol, r.FromPort, r.ToPort))
			default:
				out = append(out, n)
			}
		}
		return out
	}
	rules := groupRules{ingress: norm(g.Ingress, true), egress: norm(g.Egress, false)}
	if len(errs) > 0 {
		p.report(g.Name, "%s", strings.Join(errs, "; "))
		return groupRules{}, false
	}
	if len(dropped) > 0 {
		p.report(g.Name, "Azure NSG rules cannot match ICMP types and codes: %s not allowed", strings.Join(slices.Compact(dropped), ", "))
	}
	return rules, true
}

// normaliseRule turns a spec rule into an NSG rule with one peer; an
// ICMP rule for one type comes back without protocol (not expressible).
func normaliseRule(r provider.Rule, inbound bool, local string, asgOf map[string]string) (nsgRule, error) {
	n := nsgRule{inbound: inbound, srcPorts: "*", ports: "*", local: local}
	switch strings.ToLower(r.Protocol) {
	case "all", "-1":
		n.protocol = "*"
	case "tcp", "udp":
		if r.FromPort < 0 || r.ToPort > 65535 || r.FromPort > r.ToPort {
			return n, fmt.Errorf("port range %d-%d is not valid", r.FromPort, r.ToPort)
		}
		n.protocol = strings.ToUpper(r.Protocol[:1]) + strings.ToLower(r.Protocol[1:])
		n.ports = portRange(r.FromPort, r.ToPort)
	case "icmp", "icmpv6":
		if r.FromPort == -1 {
			n.protocol = "Icmp"
		}
	default:
		return n, fmt.Errorf("protocol %q is not one of tcp, udp, icmp, icmpv6, all", r.Protocol)
	}
	switch {
	case r.Group != "" && r.CIDR != "":
		return n, fmt.Errorf("a rule has a CIDR and a group")
	case r.Group != "":
		name, ok := asgOf[r.Group]
		if !ok {
			return n, fmt.Errorf("rule refers to %q, which is not a managed group of the spec", r.Group)
		}
		n.peers = "asg:" + name
	default:
		prefix, err := netip.ParsePrefix(r.CIDR)
		if err != nil {
			return n, fmt.Errorf("peer %q is not a CIDR", r.CIDR)
		}
		n.peers, n.peerCount = prefix.Masked().String(), 1
	}
	return n, nil
}

func portRange(from, to int32) string {
	switch {
	case from <= 0 && to >= 65535:
		return "*"
	case from == to:
		return fmt.Sprint(from)
	}
	return fmt.Sprintf("%d-%d", from, to)
}

// planInterface plans the NSG and ASGs of one interface. It returns the
// name of the managed NSG the interface must carry, and whether it is
// kept as it is (the interface is not changed).
func (p *azPlan) planInterface(prefix string, nic *nicState, groups []string, asgOf map[string]string,
	realized map[string]groupRules, cur azState, lim azLimits) (string, bool) {
	managedNSG := strings.HasPrefix(nic.nsg, "nsg:")
	unchanged := func() (string, bool) {
		if managedNSG {
			return strings.TrimPrefix(nic.nsg, "nsg:"), true
		}
		return "", false
	}
	var attached []string
	for _, g := range groups {
		if _, ok := realized[g]; ok {
			attached = append(attached, g)
		} else if _, wanted := asgOf[g]; wanted {
			return unchanged() // a refused group: the interface stays as it is
		}
	}
	want := nicWant{}
	for _, a := range nic.asgs {
		if strings.HasPrefix(a, "id:") {
			want.asgs = append(want.asgs, a)
		}
	}
	for _, g := range attached {
		if a := "asg:" + asgOf[g]; !slices.Contains(want.asgs, a) {
			want.asgs = append(want.asgs, a)
		}
	}
	switch {
	case len(attached) == 0 && !managedNSG:
		want.nsg = nic.nsg
	case len(attached) == 0:
	case nic.nsg != "" && !managedNSG:
		p.report(nic.id, "the interface carries network security group %s, which AntreaPlus does not manage, and Azure allows one per interface: its rules are not enforced",
			strings.TrimPrefix(nic.nsg, "id:"))
		return "", false
	default:
		want.nsg = "nsg:" + nsgName(prefix, nic.id)
	}
	if len(want.asgs) > lim.asgsPerNIC {
		p.report(nic.id, "%d application security groups exceed the quota of %d per IP configuration", len(want.asgs), lim.asgsPerNIC)
		return unchanged()
	}
	name := strings.TrimPrefix(want.nsg, "nsg:")
	if len(attached) > 0 && !p.planNSG(nic.id, name, attached, realized, cur.nsgs[name], lim) {
		return unchanged()
	}
	if want.nsg != nic.nsg || !sameSet(want.asgs, nic.asgs) {
		p.nics[strings.ToLower(nic.id)] = want
	}
	if len(attached) == 0 {
		return "", false
	}
	return name, false
}

// planNSG plans the content of an interface's managed NSG; false when it
// exceeds a quota (reported).
func (p *azPlan) planNSG(nic, name string, groups []string, realized map[string]groupRules, have *nsgState, lim azLimits) bool {
	rules := mergeRules(groups, realized)
	prefixes, asgs := 0, map[string]bool{}
	for _, r := range rules {
		prefixes += r.peerCount
		for _, ref := range append(strings.Split(r.peers, ","), r.local) {
			if strings.HasPrefix(ref, "asg:") || strings.HasPrefix(ref, "id:") {
				asgs[ref] = true
			}
		}
	}
	switch {
	case len(rules) > lim.rulesPerNSG:
		p.report(nic, "%d security rules exceed the quota of %d per network security group", len(rules), lim.rulesPerNSG)
	case prefixes > lim.prefixesPerNSG:
		p.report(nic, "%d address prefixes exceed the quota of %d per network security group", prefixes, lim.prefixesPerNSG)
	case len(asgs) > lim.asgsPerNSG:
		p.report(nic, "%d application security groups exceed the quota of %d per network security group", len(asgs), lim.asgsPerNSG)
	default:
		var haveRules []nsgRule
		if have != nil {
			haveRules = have.rules
		}
		added, removed := diffCount(rules, haveRules)
		if have == nil || added+removed > 0 || !have.ordered {
			p.putNSGs = append(p.putNSGs, nsgWant{name: name, nic: nic, rules: rules, create: have == nil, added: added, removed: removed})
		}
		return true
	}
	return false
}

// mergeRules merges the rules of an interface's groups: one rule per
// direction, group, protocol and ports with every peer of one kind (IPv4,
// IPv6, ASG), sorted, then the deny rules.
func mergeRules(groups []string, realized map[string]groupRules) []nsgRule {
	type key struct {
		r    nsgRule
		kind string
	}
	peers := map[key][]string{}
	for _, g := range groups {
		for _, r := range append(slices.Clone(realized[g].ingress), realized[g].egress...) {
			kind := "asg"
			if r.peerCount > 0 {
				kind = map[bool]string{true: "v6", false: "v4"}[strings.Contains(r.peers, ":")]
			}
			k := key{r: nsgRule{inbound: r.inbound, protocol: r.protocol, srcPorts: r.srcPorts, ports: r.ports, local: r.local}, kind: kind}
			if !slices.Contains(peers[k], r.peers) {
				peers[k] = append(peers[k], r.peers)
			}
		}
	}
	out := make([]nsgRule, 0, len(peers)+len(denyRules))
	for k, ps := range peers {
		r := k.r
		slices.Sort(ps)
		r.peers = strings.Join(ps, ",")
		if k.kind != "asg" {
			r.peerCount = len(ps)
		}
		out = append(out, r)
	}
	slices.SortFunc(out, compareRules)
	return append(out, denyRules...)
}

// diffCount counts the rules of want not in have, and of have not in want.
func diffCount(want, have []nsgRule) (added, removed int) {
	count := map[nsgRule]int{}
	for _, r := range have {
		count[r]++
	}
	for _, r := range want {
		if count[r] > 0 {
			count[r]--
		} else {
			added++
		}
	}
	for _, n := range count {
		removed += n
	}
	return added, removed
}

func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
