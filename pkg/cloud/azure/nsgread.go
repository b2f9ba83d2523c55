package azure

import (
	"context"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// nsgRead is what a sync reads: the state the plan needs, the interfaces'
// documents (a PUT sends the whole interface back) and the VNet's
// location, as its interfaces give it.
type nsgRead struct {
	state    azState
	nicDocs  map[string]*armnetwork.Interface // by lowercased id
	location string
}

// readSecurity lists the subscription's ASGs, NSGs and interfaces (three
// paged calls) and keeps the managed ones of the VNet: named with the
// prefix and tagged with the VNet. Other resources are never changed.
func (p *Provider) readSecurity(ctx context.Context, spec provider.SecurityGroupSpec) (nsgRead, error) {
	rd := nsgRead{
		state:   azState{asgs: map[string]*asgState{}, nsgs: map[string]*nsgState{}, nics: map[string]*nicState{}},
		nicDocs: map[string]*armnetwork.Interface{},
	}
	asgs, err := collect(p.asgs.NewListAllPager(nil), ctx,
		func(r armnetwork.ApplicationSecurityGroupsClientListAllResponse) []*armnetwork.ApplicationSecurityGroup {
			return r.Value
		})
	if err != nil {
		return rd, err
	}
	nsgs, err := collect(p.nsgs.NewListAllPager(nil), ctx,
		func(r armnetwork.SecurityGroupsClientListAllResponse) []*armnetwork.SecurityGroup { return r.Value })
	if err != nil {
		return rd, err
	}
	nics, err := collect(p.nics.NewListAllPager(nil), ctx,
		func(r armnetwork.InterfacesClientListAllResponse) []*armnetwork.Interface { return r.Value })
	if err != nil {
		return rd, err
	}
	vnet := tagValue(spec.VPCID)
	managed := func(name *string, tags map[string]*string) bool {
		return strings.HasPrefix(str(name), spec.Prefix) && str(tags[TagVNet]) == vnet
	}
	asgNames := map[string]string{} // lowercased id -> name
	for _, a := range asgs {
		if a != nil && managed(a.Name, a.Tags) {
			rd.state.asgs[str(a.Name)] = &asgState{id: str(a.ID), name: str(a.Name)}
			asgNames[strings.ToLower(str(a.ID))] = str(a.Name)
		}
	}
	nsgNames := map[string]string{}
	for _, g := range nsgs {
		if g != nil && managed(g.Name, g.Tags) {
			rd.state.nsgs[str(g.Name)] = nsgStateOf(g, asgNames)
			nsgNames[strings.ToLower(str(g.ID))] = str(g.Name)
		}
	}
	for _, n := range nics {
		if n == nil || !strings.EqualFold(convertNIC(n, nil).VPCID, spec.VPCID) {
			continue
		}
		key := strings.ToLower(str(n.ID))
		rd.state.nics[key] = nicStateOf(n, nsgNames, asgNames)
		rd.nicDocs[key] = n
		rd.location = str(n.Location)
	}
	return rd, nil
}

func nicStateOf(n *armnetwork.Interface, nsgNames, asgNames map[string]string) *nicState {
	s := &nicState{id: str(n.ID)}
	if n.Properties == nil {
		return s
	}
	if ref := n.Properties.NetworkSecurityGroup; ref != nil && str(ref.ID) != "" {
		s.nsg = ref2(str(ref.ID), nsgNames, "nsg:")
	}
	for _, c := range n.Properties.IPConfigurations {
		if c == nil || c.Properties == nil {
			continue
		}
		for _, a := range c.Properties.ApplicationSecurityGroups {
			if a == nil {
				continue
			}
			if ref := ref2(str(a.ID), asgNames, "asg:"); !slices.Contains(s.asgs, ref) {
				s.asgs = append(s.asgs, ref)
			}
		}
	}
	return s
}

// ref2 names a resource: kind+name when managed, else "id:" and its id.
func ref2(id string, managed map[string]string, kind string) string {
	if name, ok := managed[strings.ToLower(id)]; ok {
		return kind + name
	}
	return "id:" + id
}

func nsgStateOf(g *armnetwork.SecurityGroup, asgNames map[string]string) *nsgState {
	s := &nsgState{id: str(g.ID), name: str(g.Name), ordered: true}
	if g.Properties == nil {
		return s
	}
	type bounds struct{ maxAllow, minDeny int32 }
	dirs := map[bool]*bounds{true: {0, 1 << 30}, false: {0, 1 << 30}}
	for _, sr := range g.Properties.SecurityRules {
		if sr == nil || sr.Properties == nil {
			continue
		}
		r, prio := ruleOf(sr.Properties, asgNames)
		s.rules = append(s.rules, r)
		b := dirs[r.inbound]
		if r.deny {
			b.minDeny = min(b.minDeny, prio)
		} else {
			b.maxAllow = max(b.maxAllow, prio)
		}
	}
	for _, b := range dirs {
		s.ordered = s.ordered && b.maxAllow < b.minDeny
	}
	return s
}

// ruleOf normalises a security rule as Azure holds it.
func ruleOf(p *armnetwork.SecurityRulePropertiesFormat, asgNames map[string]string) (nsgRule, int32) {
	r := nsgRule{
		inbound:  p.Direction != nil && *p.Direction == armnetwork.SecurityRuleDirectionInbound,
		deny:     p.Access != nil && *p.Access == armnetwork.SecurityRuleAccessDeny,
		srcPorts: joinSide(p.SourcePortRange, p.SourcePortRanges, nil, nil),
		ports:    joinSide(p.DestinationPortRange, p.DestinationPortRanges, nil, nil),
	}
	if p.Protocol != nil {
		r.protocol = string(*p.Protocol)
	}
	src := joinSide(p.SourceAddressPrefix, p.SourceAddressPrefixes, p.SourceApplicationSecurityGroups, asgNames)
	dst := joinSide(p.DestinationAddressPrefix, p.DestinationAddressPrefixes, p.DestinationApplicationSecurityGroups, asgNames)
	r.local, r.peers = src, dst
	if r.inbound {
		r.local, r.peers = dst, src
	}
	for _, peer := range strings.Split(r.peers, ",") {
		if peer != "" && peer != "*" && !strings.HasPrefix(peer, "asg:") && !strings.HasPrefix(peer, "id:") {
			r.peerCount++
		}
	}
	var prio int32
	if p.Priority != nil {
		prio = *p.Priority
	}
	return r, prio
}

// joinSide joins one side of a rule in the plan's form: sorted, commas.
func joinSide(one *string, many []*string, asgs []*armnetwork.ApplicationSecurityGroup, asgNames map[string]string) string {
	var parts []string
	if str(one) != "" {
		parts = append(parts, str(one))
	}
	for _, m := range many {
		if str(m) != "" {
			parts = append(parts, str(m))
		}
	}
	for _, a := range asgs {
		if a != nil {
			parts = append(parts, ref2(str(a.ID), asgNames, "asg:"))
		}
	}
	slices.Sort(parts)
	return strings.Join(slices.Compact(parts), ",")
}
