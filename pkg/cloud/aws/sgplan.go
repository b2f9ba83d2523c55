package aws

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// This file plans a security group sync as a pure function of the spec and
// of what the cloud holds; securitygroups.go reads the cloud and runs the
// plan.

// rule is a normalised EC2 rule: one protocol and range, one peer. peer is
// a CIDR, "sg:<name>" for a managed group, or "id:<group id>" for another.
type rule struct {
	protocol string
	from, to int32
	peer     string
}

func (r rule) String() string {
	return fmt.Sprintf("%s %d-%d %s", r.protocol, r.from, r.to, r.peer)
}

// defaultEgress is the rule EC2 puts in every new group.
var defaultEgress = rule{protocol: "-1", peer: "0.0.0.0/0"}

// groupState is a managed group as the cloud holds it.
type groupState struct {
	id, name        string
	ingress, egress []rule
}

// cloudState is what a sync reads: the managed groups of the VPC by name,
// the group ids of every network interface of the VPC but those services
// manage (requester-managed), and, when the sync concerns them, the
// services of the VPC by ARN.
type cloudState struct {
	groups   map[string]*groupState
	nics     map[string][]string
	services map[string]*serviceState
}

// managedIDs maps the id of each managed group to its name.
func (c cloudState) managedIDs() map[string]string {
	out := make(map[string]string, len(c.groups))
	for name, g := range c.groups {
		out[g.id] = name
	}
	return out
}

// ruleChange is what one group's rules in one direction need.
type ruleChange struct {
	group    string // name
	egress   bool
	add, del []rule
}

// sgPlan is the writes of one sync, in the order they run: create groups,
// authorize then revoke (so no flow is dropped in between), set interface
// groups, drop stale groups' references, delete stale groups.
type sgPlan struct {
	create     []provider.SecurityGroup
	changes    []ruleChange
	interfaces map[string][]string // nic id -> managed names ("sg:" prefixed) and other ids
	services   map[string][]string // service ARN -> the same
	unlink     []ruleChange        // group references of stale groups
	delete     []*groupState
	unrealized []provider.Unrealized
}

type limits struct{ rulesPerGroup, groupsPerInterface int }

func planSecurityGroups(spec provider.SecurityGroupSpec, cur cloudState, lim limits) sgPlan {
	p := sgPlan{interfaces: map[string][]string{}, services: map[string][]string{}}
	wanted := map[string]bool{}
	for _, g := range spec.Groups {
		switch {
		case !strings.HasPrefix(g.Name, spec.Prefix):
			p.report(g.Name, "name does not start with the managed prefix %q", spec.Prefix)
		case wanted[g.Name]:
			p.report(g.Name, "listed twice")
		default:
			wanted[g.Name] = true
		}
	}
	realized := map[string]bool{}
	for _, g := range spec.Groups {
		if !wanted[g.Name] || realized[g.Name] {
			continue
		}
		ingress, egress, ok := p.normaliseGroup(g, wanted, lim)
		if !ok {
			continue
		}
		realized[g.Name] = true
		have := cur.groups[g.Name]
		if have == nil {
			p.create = append(p.create, g)
			have = &groupState{name: g.Name, egress: []rule{defaultEgress}}
		}
		p.diffRules(g.Name, false, ingress, have.ingress)
		p.diffRules(g.Name, true, egress, have.egress)
	}
	for _, name := range sortedNames(cur.groups) {
		if g := cur.groups[name]; !wanted[name] {
			p.delete = append(p.delete, g)
			p.unlink = append(p.unlink, groupRefs(g, false), groupRefs(g, true))
		}
	}
	// A managed group the spec wants but the cloud cannot hold keeps its
	// attachments as they are.
	keep := map[string]bool{}
	for name := range wanted {
		if !realized[name] && cur.groups[name] != nil {
			keep[name] = true
		}
	}
	p.planInterfaces(spec, cur, realized, keep, lim)
	p.planServices(spec, cur, realized, keep, lim)
	return p
}

func (p *sgPlan) report(object, format string, args ...any) {
	p.unrealized = append(p.unrealized, provider.Unrealized{Object: object, Reason: fmt.Sprintf(format, args...)})
}

// normaliseGroup normalises a group's rules; a group the cloud cannot hold
// is reported and left out (false).
func (p *sgPlan) normaliseGroup(g provider.SecurityGroup, wanted map[string]bool, lim limits) (ingress, egress []rule, ok bool) {
	var errs []string
	norm := func(rules []provider.Rule) []rule {
		var out []rule
		for _, r := range rules {
			n, err := normaliseRule(r, wanted)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		return out
	}
	ingress, egress = norm(g.Ingress), norm(g.Egress)
	if len(errs) > 0 {
		p.report(g.Name, "%s", strings.Join(errs, "; "))
		return nil, nil, false
	}
	over := false
	for _, d := range []struct {
		dir   string
		rules []rule
	}{{"ingress", ingress}, {"egress", egress}} {
		if len(d.rules) > lim.rulesPerGroup {
			p.reportCode(g.Name, provider.UnrealizedQuota, "%d %s rules exceed the quota of %d rules per security group", len(d.rules), d.dir, lim.rulesPerGroup)
			over = true
		}
	}
	if over {
		return nil, nil, false
	}
	return ingress, egress, true
}

func normaliseRule(r provider.Rule, groups map[string]bool) (rule, error) {
	n := rule{protocol: strings.ToLower(r.Protocol), from: r.FromPort, to: r.ToPort}
	switch n.protocol {
	case "all", "-1":
		n = rule{protocol: "-1"}
	case "tcp", "udp":
		if n.from < 0 || n.to > 65535 || n.from > n.to {
			return n, fmt.Errorf("port range %d-%d is not valid", n.from, n.to)
		}
	case "icmp", "icmpv6":
	default:
		return n, fmt.Errorf("protocol %q is not one of tcp, udp, icmp, icmpv6, all", r.Protocol)
	}
	switch {
	case r.Group != "" && r.CIDR != "":
		return n, fmt.Errorf("a rule has a CIDR and a group")
	case r.Group != "":
		if !groups[r.Group] {
			return n, fmt.Errorf("rule refers to %q, which is not a managed group of the spec", r.Group)
		}
		n.peer = "sg:" + r.Group
	default:
		prefix, err := netip.ParsePrefix(r.CIDR)
		if err != nil {
			return n, fmt.Errorf("peer %q is not a CIDR", r.CIDR)
		}
		n.peer = prefix.Masked().String()
	}
	return n, nil
}

func (p *sgPlan) diffRules(group string, egress bool, want, have []rule) {
	c := ruleChange{group: group, egress: egress}
	for _, r := range want {
		if !slices.Contains(have, r) {
			c.add = append(c.add, r)
		}
	}
	for _, r := range have {
		if !slices.Contains(want, r) {
			c.del = append(c.del, r)
		}
	}
	if len(c.add)+len(c.del) > 0 {
		p.changes = append(p.changes, c)
	}
}

// groupRefs are the rules of a stale group that refer to groups: they must
// go before groups that refer to each other can be deleted.
func groupRefs(g *groupState, egress bool) ruleChange {
	c := ruleChange{group: g.name, egress: egress}
	rules := g.ingress
	if egress {
		rules = g.egress
	}
	for _, r := range rules {
		if strings.HasPrefix(r.peer, "sg:") || strings.HasPrefix(r.peer, "id:") {
			c.del = append(c.del, r)
		}
	}
	return c
}

// planInterfaces gives each interface of the VPC its other groups plus the
// managed groups the spec attaches to it.
func (p *sgPlan) planInterfaces(spec provider.SecurityGroupSpec, cur cloudState, realized, keep map[string]bool, lim limits) {
	managedIDs := cur.managedIDs()
	for _, nic := range sortedNames(spec.Attachments) {
		if _, ok := cur.nics[nic]; !ok {
			p.reportCode(nic, provider.UnrealizedNotFound, "network interface not found in VPC %s", spec.VPCID)
		}
	}
	for _, nic := range sortedNames(cur.nics) {
		want, current := wantedGroups(cur.nics[nic], spec.Attachments[nic], managedIDs, realized, keep)
		switch {
		case sameSet(want, current):
		case len(want) == 0:
			p.report(nic, "an interface needs at least one security group")
		case len(want) > lim.groupsPerInterface:
			p.reportCode(nic, provider.UnrealizedQuota, "%d security groups exceed the quota of %d per interface", len(want), lim.groupsPerInterface)
		default:
			p.interfaces[nic] = want
		}
	}
}

// wantedGroups are the groups an interface or service must carry: its
// other groups ("id:" prefixed), the managed ones kept as they are, and the
// realised managed groups the spec gives it ("sg:" prefixed); and those it
// carries, named the same way.
func wantedGroups(have, attach []string, managedIDs map[string]string, realized, keep map[string]bool) (want, current []string) {
	for _, id := range have {
		name, managed := managedIDs[id]
		switch {
		case !managed:
			want = append(want, "id:"+id)
			current = append(current, "id:"+id)
			continue
		case keep[name]:
			want = append(want, "sg:"+name)
		}
		current = append(current, "sg:"+name)
	}
	for _, name := range attach {
		if realized[name] && !slices.Contains(want, "sg:"+name) {
			want = append(want, "sg:"+name)
		}
	}
	return want, current
}

func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// serviceKind is a kind of service whose groups a sync sets.
type serviceKind int

const (
	svcDBInstance serviceKind = iota + 1
	svcDBCluster
	svcLoadBalancer
)

// serviceKindOf tells the kind of a service from its ARN.
func serviceKindOf(arn string) serviceKind {
	switch {
	case strings.Contains(arn, ":rds:") && strings.Contains(arn, ":db:"):
		return svcDBInstance
	case strings.Contains(arn, ":rds:") && strings.Contains(arn, ":cluster:"):
		return svcDBCluster
	case strings.Contains(arn, ":elasticloadbalancing:") && strings.Contains(arn, ":loadbalancer/"):
		return svcLoadBalancer
	}
	return 0
}

// serviceState is a service of the VPC and its groups as the cloud holds
// them.
type serviceState struct {
	arn  string
	kind serviceKind
	// name is a DB instance's or cluster's identifier.
	name   string
	groups []string
	// cluster is the DB cluster of a DB instance that is a member of one:
	// its groups are the cluster's.
	cluster string
	// fixed says why the service cannot carry groups, if it cannot.
	fixed string
}

// planServices gives each service of the VPC its other groups plus the
// managed groups the spec gives it. Member instances of a DB cluster are
// left to their cluster.
func (p *sgPlan) planServices(spec provider.SecurityGroupSpec, cur cloudState, realized, keep map[string]bool, lim limits) {
	managedIDs := cur.managedIDs()
	for _, arn := range sortedNames(spec.Services) {
		if _, ok := cur.services[arn]; !ok {
			p.reportCode(arn, provider.UnrealizedNotFound, "service not found in VPC %s (deleted, or not in this VPC)", spec.VPCID)
		}
	}
	for _, arn := range sortedNames(cur.services) {
		svc := cur.services[arn]
		wanted := spec.Services[arn]
		if svc.cluster != "" {
			if len(wanted) > 0 {
				p.reportCode(arn, provider.UnrealizedClusterMember,
					"DB instance %s is a member of DB cluster %s, whose security groups it has: apply the policy to the cluster's ExternalEntity", svc.name, svc.cluster)
			}
			continue
		}
		want, current := wantedGroups(svc.groups, wanted, managedIDs, realized, keep)
		switch {
		case sameSet(want, current):
		case svc.fixed != "":
			p.reportCode(arn, provider.UnrealizedNoSecurityGroups, "%s", svc.fixed)
		case len(want) == 0:
			p.report(arn, "a service needs at least one security group of its own beside the managed ones: give it one")
		case len(want) > lim.groupsPerInterface:
			p.reportCode(arn, provider.UnrealizedQuota, "%d security groups exceed the quota of %d per service", len(want), lim.groupsPerInterface)
		default:
			p.services[arn] = want
		}
	}
}

func (p *sgPlan) reportCode(object, code, format string, args ...any) {
	p.unrealized = append(p.unrealized, provider.Unrealized{Object: object, Code: code, Reason: fmt.Sprintf(format, args...)})
}
