package azure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// SyncSecurityGroups makes the managed NSGs and ASGs of one VNet what spec
// says (see nsgplan.go for the layout): it lists the subscription's ASGs,
// NSGs and interfaces, plans the difference, and writes only that: one PUT
// per new ASG, one PUT of the whole NSG per interface whose rules differ
// (however many rules changed), one PUT per interface whose NSG or ASGs
// change, one DELETE per stale NSG and ASG. Each write is a long-running
// operation, polled to its end. A sync of an unchanged VNet costs three
// list calls and no write.
//
// The managed resources live in the VNet's resource group and location,
// named with the prefix and tagged with the VNet (TagVNet): a sync only
// changes or deletes those of its own VNet. Cloud failures
// (authentication, throttling after retries, network, server errors) stop
// the sync and are returned; a write ARM refuses (a quota, a reference) is
// reported in the result's Unrealized, and the sync goes on.
func (p *Provider) SyncSecurityGroups(ctx context.Context, region string, spec provider.SecurityGroupSpec) (provider.SyncResult, error) {
	if spec.VPCID == "" || spec.Prefix == "" {
		return provider.SyncResult{}, errors.New("security group sync needs a VNet id and a managed prefix")
	}
	if err := checkPrefix(spec.Prefix); err != nil {
		return provider.SyncResult{}, err
	}
	vnet, err := arm.ParseResourceID(spec.VPCID)
	if err != nil {
		return provider.SyncResult{}, fmt.Errorf("VNet id %q: %w", spec.VPCID, err)
	}
	if err := p.checkLocation(ctx, region); err != nil {
		return provider.SyncResult{}, err
	}
	rd, err := p.readSecurity(ctx, spec)
	if err != nil {
		return provider.SyncResult{}, classify(err, "reading security groups", region)
	}
	plan := planNSGs(spec, rd.state, azLimits{rulesPerNSG: p.opts.RulesPerNSG, prefixesPerNSG: p.opts.AddressPrefixesPerNSG,
		asgsPerNSG: p.opts.ASGsPerNSG, asgsPerNIC: p.opts.ASGsPerInterface})
	r := &nsgRun{p: p, ctx: ctx, region: region, spec: spec, vnet: vnet, location: rd.location,
		asgIDs: map[string]string{}, nsgIDs: map[string]string{}, nicDocs: rd.nicDocs}
	r.res.Unrealized = plan.unrealized
	for _, id := range sortedKeys(spec.Services) {
		if len(spec.Services[id]) > 0 {
			r.res.Unrealized = append(r.res.Unrealized, provider.Unrealized{Object: id, Code: provider.UnrealizedNoSecurityGroups,
				Reason: "an Azure service carries no network security group of its own"})
		}
	}
	for name, a := range rd.state.asgs {
		r.asgIDs[name] = a.id
	}
	for name, g := range rd.state.nsgs {
		r.nsgIDs[name] = g.id
	}
	for _, a := range plan.createASGs {
		r.createASG(a)
	}
	for _, g := range plan.putNSGs {
		r.putNSG(g)
	}
	for _, nic := range sortedKeys(plan.nics) {
		r.putInterface(nic, plan.nics[nic])
	}
	for _, g := range plan.deleteNSGs {
		r.delete(g.name, "deleting network security group "+g.name, func() error {
			poller, err := p.nsgs.BeginDelete(ctx, vnet.ResourceGroupName, g.name, nil)
			if err == nil {
				_, err = poller.PollUntilDone(ctx, r.pollOptions())
			}
			return err
		})
	}
	for _, a := range plan.deleteASGs {
		r.delete(a.name, "deleting application security group "+a.name, func() error {
			poller, err := p.asgs.BeginDelete(ctx, vnet.ResourceGroupName, a.name, nil)
			if err == nil {
				_, err = poller.PollUntilDone(ctx, r.pollOptions())
			}
			return err
		})
	}
	return r.res, r.err
}

// nsgRun runs a plan; after a cloud failure (err set) it does nothing more.
type nsgRun struct {
	p        *Provider
	ctx      context.Context
	region   string
	spec     provider.SecurityGroupSpec
	vnet     *arm.ResourceID
	location string
	asgIDs   map[string]string // managed ASG name -> id
	nsgIDs   map[string]string // managed NSG name -> id
	nicDocs  map[string]*armnetwork.Interface
	res      provider.SyncResult
	err      error
}

func (r *nsgRun) pollOptions() *runtime.PollUntilDoneOptions {
	return &runtime.PollUntilDoneOptions{Frequency: r.p.opts.PollFrequency}
}

// call runs one write for object and tells whether it succeeded.
func (r *nsgRun) call(object, what string, fn func() error) bool {
	if r.err != nil {
		return false
	}
	r.res.Writes++
	err := classify(fn(), what, r.region)
	var resp *azcore.ResponseError
	switch {
	case err == nil:
		return true
	case errors.Is(err, provider.ErrAuthentication), errors.Is(err, provider.ErrThrottled),
		!errors.As(err, &resp), resp.StatusCode >= http.StatusInternalServerError:
		r.err = err
	default:
		r.report(object, "%s: %s", resp.ErrorCode, armMessage(resp))
	}
	return false
}

func (r *nsgRun) report(object, format string, args ...any) {
	r.res.Unrealized = append(r.res.Unrealized, provider.Unrealized{Object: object, Reason: fmt.Sprintf(format, args...)})
}

// armMessage is the message of an ARM error body.
func armMessage(resp *azcore.ResponseError) string {
	var body struct {
		Error struct{ Message string } `json:"error"`
	}
	if resp.RawResponse != nil {
		if payload, err := runtime.Payload(resp.RawResponse); err == nil && json.Unmarshal(payload, &body) == nil && body.Error.Message != "" {
			return body.Error.Message
		}
	}
	return fmt.Sprintf("HTTP %d", resp.StatusCode)
}

// resourceLocation is the VNet's location: its interfaces', or read.
func (r *nsgRun) resourceLocation() (string, bool) {
	if r.location != "" {
		return r.location, true
	}
	r.call(r.spec.VPCID, "reading the VNet", func() error {
		r.res.Writes-- // a read
		v, err := r.p.vnets.Get(r.ctx, r.vnet.ResourceGroupName, r.vnet.Name, nil)
		r.location = str(v.Location)
		return err
	})
	return r.location, r.location != ""
}

func (r *nsgRun) tags(extra map[string]string) map[string]*string {
	t := map[string]*string{TagManaged: to.Ptr("true"), TagVNet: to.Ptr(tagValue(r.spec.VPCID))}
	for k, v := range extra {
		if len(v) <= maxTagValue {
			t[k] = to.Ptr(v)
		}
	}
	return t
}

func (r *nsgRun) createASG(a asgWant) {
	loc, ok := r.resourceLocation()
	if !ok {
		return
	}
	r.call(a.group, "creating application security group "+a.name, func() error {
		poller, err := r.p.asgs.BeginCreateOrUpdate(r.ctx, r.vnet.ResourceGroupName, a.name, armnetwork.ApplicationSecurityGroup{
			Location: to.Ptr(loc), Tags: r.tags(map[string]string{TagGroup: a.group}),
		}, nil)
		if err != nil {
			return err
		}
		res, err := poller.PollUntilDone(r.ctx, r.pollOptions())
		if err == nil {
			r.asgIDs[a.name] = str(res.ID)
			r.res.Created = append(r.res.Created, a.name)
		}
		return err
	})
}

func (r *nsgRun) putNSG(g nsgWant) {
	rules, ok := r.securityRules(g)
	if !ok {
		return
	}
	loc, ok := r.resourceLocation()
	if !ok {
		return
	}
	r.call(g.nic, "writing network security group "+g.name, func() error {
		poller, err := r.p.nsgs.BeginCreateOrUpdate(r.ctx, r.vnet.ResourceGroupName, g.name, armnetwork.SecurityGroup{
			Location:   to.Ptr(loc),
			Tags:       r.tags(map[string]string{TagInterface: strings.ToLower(g.nic)}),
			Properties: &armnetwork.SecurityGroupPropertiesFormat{SecurityRules: rules},
		}, nil)
		if err != nil {
			return err
		}
		res, err := poller.PollUntilDone(r.ctx, r.pollOptions())
		if err == nil {
			r.nsgIDs[g.name] = str(res.ID)
			r.res.RulesAdded += g.added
			r.res.RulesRemoved += g.removed
			if g.create {
				r.res.Created = append(r.res.Created, g.name)
			}
		}
		return err
	})
}

// securityRules turns the planned rules into ARM's, with names and
// priorities: allow rules from 100 in order, the deny rules at 4096.
func (r *nsgRun) securityRules(g nsgWant) ([]*armnetwork.SecurityRule, bool) {
	out := make([]*armnetwork.SecurityRule, 0, len(g.rules))
	next := map[bool]int32{true: firstPriority, false: firstPriority}
	for _, rule := range g.rules {
		dir, prio := "out", next[rule.inbound]
		if rule.inbound {
			dir = "in"
		}
		name := fmt.Sprintf("allow-%s-%d", dir, prio)
		if rule.deny {
			name, prio = "deny-all-"+dir, denyPriority
		} else {
			next[rule.inbound]++
		}
		sr, ok := r.securityRule(rule, prio)
		if !ok {
			r.report(g.nic, "rule %s refers to an application security group that was not created", rule)
			return nil, false
		}
		out = append(out, &armnetwork.SecurityRule{Name: to.Ptr(name), Properties: sr})
	}
	return out, true
}

func (r *nsgRun) securityRule(rule nsgRule, prio int32) (*armnetwork.SecurityRulePropertiesFormat, bool) {
	p := &armnetwork.SecurityRulePropertiesFormat{
		Protocol:  to.Ptr(armnetwork.SecurityRuleProtocol(rule.protocol)),
		Access:    to.Ptr(armnetwork.SecurityRuleAccessAllow),
		Direction: to.Ptr(armnetwork.SecurityRuleDirectionOutbound),
		Priority:  to.Ptr(prio),
	}
	if rule.deny {
		p.Access = to.Ptr(armnetwork.SecurityRuleAccessDeny)
	}
	if rule.inbound {
		p.Direction = to.Ptr(armnetwork.SecurityRuleDirectionInbound)
	}
	p.SourcePortRange, p.DestinationPortRanges = to.Ptr(rule.srcPorts), nil
	if ports := strings.Split(rule.ports, ","); len(ports) == 1 {
		p.DestinationPortRange = to.Ptr(ports[0])
	} else {
		p.DestinationPortRanges = to.SliceOfPtrs(ports...)
	}
	src, dst := rule.peers, rule.local
	if !rule.inbound {
		src, dst = dst, src
	}
	var ok1, ok2 bool
	p.SourceAddressPrefix, p.SourceAddressPrefixes, p.SourceApplicationSecurityGroups, ok1 = r.side(src)
	p.DestinationAddressPrefix, p.DestinationAddressPrefixes, p.DestinationApplicationSecurityGroups, ok2 = r.side(dst)
	return p, ok1 && ok2
}

// side turns one side of a planned rule into an address prefix, prefixes
// or ASGs.
func (r *nsgRun) side(s string) (*string, []*string, []*armnetwork.ApplicationSecurityGroup, bool) {
	parts := strings.Split(s, ",")
	if !strings.HasPrefix(parts[0], "asg:") && !strings.HasPrefix(parts[0], "id:") {
		if len(parts) == 1 {
			return to.Ptr(parts[0]), nil, nil, true
		}
		return nil, to.SliceOfPtrs(parts...), nil, true
	}
	var asgs []*armnetwork.ApplicationSecurityGroup
	for _, ref := range parts {
		id, managed := r.asgIDs[strings.TrimPrefix(ref, "asg:")]
		if ext, ok := strings.CutPrefix(ref, "id:"); ok {
			id, managed = ext, true
		}
		if !managed {
			return nil, nil, nil, false
		}
		asgs = append(asgs, &armnetwork.ApplicationSecurityGroup{ID: to.Ptr(id)})
	}
	return nil, nil, asgs, true
}

// putInterface writes an interface back with its new NSG and ASGs (on
// every IP configuration); its other properties are sent as read.
func (r *nsgRun) putInterface(key string, want nicWant) {
	doc := r.nicDocs[key]
	id, err := arm.ParseResourceID(str(doc.ID))
	if err != nil || doc.Properties == nil {
		r.report(str(doc.ID), "cannot parse the interface: %v", err)
		return
	}
	var nsg *armnetwork.SecurityGroup
	if want.nsg != "" {
		nsgID, ok := r.nsgIDs[strings.TrimPrefix(want.nsg, "nsg:")]
		if ext, isExt := strings.CutPrefix(want.nsg, "id:"); isExt {
			nsgID, ok = ext, true
		}
		if !ok {
			r.report(str(doc.ID), "its network security group %s was not written", strings.TrimPrefix(want.nsg, "nsg:"))
			return
		}
		nsg = &armnetwork.SecurityGroup{ID: to.Ptr(nsgID)}
	}
	_, _, asgs, ok := r.side(strings.Join(want.asgs, ","))
	if len(want.asgs) == 0 {
		asgs, ok = nil, true
	}
	if !ok {
		r.report(str(doc.ID), "an application security group of the interface was not created")
		return
	}
	out := *doc
	props := *doc.Properties
	out.Properties = &props
	props.NetworkSecurityGroup = nsg
	props.IPConfigurations = make([]*armnetwork.InterfaceIPConfiguration, 0, len(doc.Properties.IPConfigurations))
	for _, c := range doc.Properties.IPConfigurations {
		if c == nil || c.Properties == nil {
			props.IPConfigurations = append(props.IPConfigurations, c)
			continue
		}
		cc, cp := *c, *c.Properties
		cp.ApplicationSecurityGroups = asgs
		cc.Properties = &cp
		props.IPConfigurations = append(props.IPConfigurations, &cc)
	}
	if r.call(str(doc.ID), "writing network interface "+id.Name, func() error {
		poller, err := r.p.nics.BeginCreateOrUpdate(r.ctx, id.ResourceGroupName, id.Name, out, nil)
		if err == nil {
			_, err = poller.PollUntilDone(r.ctx, r.pollOptions())
		}
		return err
	}) {
		r.res.InterfacesChanged++
	}
}

func (r *nsgRun) delete(name, what string, fn func() error) {
	if r.call(name, what, fn) {
		r.res.Deleted = append(r.res.Deleted, name)
	}
}
