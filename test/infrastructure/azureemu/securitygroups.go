package azureemu

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// This file holds network security groups (NSGs), application security
// groups (ASGs) and the security of network interfaces: their writes over
// ARM, with the checks and quotas Azure applies, and their documents.

type resourceBody struct {
	Location string            `json:"location"`
	Tags     map[string]string `json:"tags"`
}

type nsgBody struct {
	resourceBody
	Properties struct {
		SecurityRules []securityRuleJSON `json:"securityRules"`
	} `json:"properties"`
}

type nicBody struct {
	Properties struct {
		NetworkSecurityGroup *idRef         `json:"networkSecurityGroup"`
		IPConfigurations     []ipConfigBody `json:"ipConfigurations"`
	} `json:"properties"`
}

type ipConfigBody struct {
	Name       string `json:"name"`
	Properties struct {
		ApplicationSecurityGroups []idRef `json:"applicationSecurityGroups"`
	} `json:"properties"`
}

// location returns the served location name matching l.
func (s *Server) location(l string) (string, *armFailure) {
	for _, loc := range s.opts.Locations {
		if strings.EqualFold(strings.ReplaceAll(l, " ", ""), loc) {
			return loc, nil
		}
	}
	return "", badRequest("LocationNotAvailableForResourceType", "The provided location '%s' is not available for this resource type.", l)
}

// putNSG creates or replaces a network security group; s.mu is held.
func (s *Server) putNSG(id string, body []byte) (any, bool, *armFailure) {
	var in nsgBody
	if f := decode(body, &in); f != nil {
		return nil, false, f
	}
	loc, f := s.location(in.Location)
	if f != nil {
		return nil, false, f
	}
	rules, f := s.checkRules(id, in.Properties.SecurityRules)
	if f != nil {
		return nil, false, f
	}
	key := strings.ToLower(id)
	g := s.nsgs[key]
	created := g == nil
	if created {
		g = &nsg{id: id, name: id[strings.LastIndex(id, "/")+1:], location: loc}
		s.nsgs[key] = g
	}
	g.tags, g.rules = maps.Clone(in.Tags), rules
	doc := s.nsgDoc(g, s.nsgInterfaces())
	doc.Properties.ProvisioningState = "Updating"
	return doc, created, nil
}

// checkRules validates the rules of an NSG as ARM does and fills in what
// ARM adds.
func (s *Server) checkRules(nsgID string, in []securityRuleJSON) ([]securityRuleJSON, *armFailure) {
	if len(in) > s.opts.MaxRulesPerNSG {
		return nil, badRequest("SecurityRulesLimitReached", "Network security group %s has %d security rules; the limit is %d.", nsgID, len(in), s.opts.MaxRulesPerNSG)
	}
	names := map[string]bool{}
	priorities := map[string]bool{}
	out := make([]securityRuleJSON, 0, len(in))
	for _, r := range in {
		p := r.Properties
		prio := fmt.Sprint(strings.ToLower(p.Direction), p.Priority)
		switch {
		case r.Name == "" || names[strings.ToLower(r.Name)]:
			return nil, badRequest("InvalidRequestFormat", "Security rule names must be set and unique; %q is not.", r.Name)
		case p.Priority < 100 || p.Priority > 4096:
			return nil, badRequest("SecurityRuleInvalidPriority", "Security rule %s has invalid priority %d. Value provided: %d. Allowed range 100-4096.", r.Name, p.Priority, p.Priority)
		case priorities[prio]:
			return nil, badRequest("SecurityRuleConflict", "Security rule %s conflicts with another rule: same priority %d and direction %s.", r.Name, p.Priority, p.Direction)
		case p.Access != "Allow" && p.Access != "Deny":
			return nil, badRequest("InvalidRequestFormat", "Security rule %s: access %q is not Allow or Deny.", r.Name, p.Access)
		case p.Direction != "Inbound" && p.Direction != "Outbound":
			return nil, badRequest("InvalidRequestFormat", "Security rule %s: direction %q is not Inbound or Outbound.", r.Name, p.Direction)
		case !slices.Contains([]string{"Tcp", "Udp", "Icmp", "Esp", "Ah", "*"}, p.Protocol):
			return nil, badRequest("InvalidRequestFormat", "Security rule %s: protocol %q is not valid.", r.Name, p.Protocol)
		case p.SourceAddressPrefix == "" && len(p.SourceAddressPrefixes) == 0 && len(p.SourceApplicationSecurityGroups) == 0,
			p.DestinationAddressPrefix == "" && len(p.DestinationAddressPrefixes) == 0 && len(p.DestinationApplicationSecurityGroups) == 0:
			return nil, badRequest("SecurityRuleParameterNotSpecified", "Security rule %s has no source or no destination.", r.Name)
		}
		for _, a := range append(slices.Clone(p.SourceApplicationSecurityGroups), p.DestinationApplicationSecurityGroups...) {
			if s.asgs[strings.ToLower(a.ID)] == nil {
				return nil, badRequest("InvalidResourceReference", "Resource %s referenced by security rule %s was not found.", a.ID, r.Name)
			}
		}
		names[strings.ToLower(r.Name)], priorities[prio] = true, true
		r.ID, r.Type = nsgID+"/securityRules/"+r.Name, "Microsoft.Network/networkSecurityGroups/securityRules"
		r.Properties.ProvisioningState = "Succeeded"
		out = append(out, r)
	}
	return out, nil
}

// putASG creates or updates an application security group; s.mu is held.
func (s *Server) putASG(id string, body []byte) (any, bool, *armFailure) {
	var in resourceBody
	if f := decode(body, &in); f != nil {
		return nil, false, f
	}
	loc, f := s.location(in.Location)
	if f != nil {
		return nil, false, f
	}
	key := strings.ToLower(id)
	a := s.asgs[key]
	created := a == nil
	if created {
		a = &asg{id: id, name: id[strings.LastIndex(id, "/")+1:], location: loc}
		s.asgs[key] = a
	}
	a.tags = maps.Clone(in.Tags)
	doc := asgDoc(a)
	doc.Properties.ProvisioningState = "Updating"
	return doc, created, nil
}

// putNIC updates the NSG and ASGs of an existing network interface; the
// emulator creates no interfaces over ARM and ignores other changes.
// s.mu is held.
func (s *Server) putNIC(id string, body []byte) (any, *armFailure) {
	n := s.nics[strings.ToLower(id)]
	if n == nil {
		return nil, badRequest("OperationNotSupported", "The emulator only updates existing network interfaces; %s does not exist.", id)
	}
	var in nicBody
	if f := decode(body, &in); f != nil {
		return nil, f
	}
	var nsgID string
	if ref := in.Properties.NetworkSecurityGroup; ref != nil && ref.ID != "" {
		if s.nsgs[strings.ToLower(ref.ID)] == nil {
			return nil, badRequest("InvalidResourceReference", "Resource %s referenced by resource %s was not found.", ref.ID, id)
		}
		nsgID = ref.ID
	}
	i := slices.IndexFunc(in.Properties.IPConfigurations, func(c ipConfigBody) bool { return strings.EqualFold(c.Name, ipConfigName) })
	if i < 0 {
		return nil, badRequest("IpConfigurationRequired", "Network interface %s must keep its IP configuration %s.", id, ipConfigName)
	}
	refs := in.Properties.IPConfigurations[i].Properties.ApplicationSecurityGroups
	if len(refs) > s.opts.MaxASGsPerIPConfig {
		return nil, badRequest("ApplicationSecurityGroupLimitReached", "IP configuration %s of %s has %d application security groups; the limit is %d.", ipConfigName, id, len(refs), s.opts.MaxASGsPerIPConfig)
	}
	asgs := make([]string, 0, len(refs))
	for _, ref := range refs {
		a := s.asgs[strings.ToLower(ref.ID)]
		if a == nil {
			return nil, badRequest("InvalidResourceReference", "Resource %s referenced by resource %s was not found.", ref.ID, id)
		}
		asgs = append(asgs, a.id)
	}
	n.nsg, n.asgs = nsgID, asgs
	return nicDoc(n, "Updating"), nil
}

// deleteNSG deletes an NSG no interface uses; s.mu is held.
func (s *Server) deleteNSG(key, id string) *armFailure {
	for _, n := range s.nics {
		if strings.EqualFold(n.nsg, id) {
			return badRequest("InUseNetworkSecurityGroupCannotBeDeleted", "Network security group %s cannot be deleted because it is in use by %s.", id, n.id)
		}
	}
	delete(s.nsgs, key)
	return nil
}

// deleteASG deletes an ASG no interface or rule uses; s.mu is held.
func (s *Server) deleteASG(key, id string) *armFailure {
	inUse := &armFailure{status: http.StatusBadRequest, code: "InUseApplicationSecurityGroupCannotBeDeleted",
		message: fmt.Sprintf("Application security group %s cannot be deleted because it is in use.", id)}
	for _, n := range s.nics {
		if slices.ContainsFunc(n.asgs, func(a string) bool { return strings.EqualFold(a, id) }) {
			return inUse
		}
	}
	for _, g := range s.nsgs {
		for _, r := range g.rules {
			if slices.ContainsFunc(append(slices.Clone(r.Properties.SourceApplicationSecurityGroups), r.Properties.DestinationApplicationSecurityGroups...),
				func(a idRef) bool { return strings.EqualFold(a.ID, id) }) {
				return inUse
			}
		}
	}
	delete(s.asgs, key)
	return nil
}

// nsgInterfaces maps each NSG (lowercased id) to the interfaces using it.
func (s *Server) nsgInterfaces() map[string][]idRef {
	out := map[string][]idRef{}
	for _, n := range s.nics {
		if n.nsg != "" {
			out[strings.ToLower(n.nsg)] = append(out[strings.ToLower(n.nsg)], idRef{ID: n.id})
		}
	}
	return out
}

func (s *Server) nsgDoc(g *nsg, users map[string][]idRef) nsgJSON {
	doc := nsgJSON{ID: g.id, Name: g.name, Type: "Microsoft.Network/networkSecurityGroups", Location: g.location, Tags: g.tags}
	doc.Properties.SecurityRules = slices.Clone(g.rules)
	if doc.Properties.SecurityRules == nil {
		doc.Properties.SecurityRules = []securityRuleJSON{}
	}
	doc.Properties.DefaultSecurityRules = defaultRules(g.id)
	doc.Properties.NetworkInterfaces = users[strings.ToLower(g.id)]
	doc.Properties.ProvisioningState = "Succeeded"
	return doc
}

// defaultRules are the rules Azure puts after every NSG's own.
func defaultRules(nsgID string) []securityRuleJSON {
	var out []securityRuleJSON
	for _, d := range []struct {
		name, dir, access, src, dst string
		prio                        int32
	}{
		{"AllowVnetInBound", "Inbound", "Allow", "VirtualNetwork", "VirtualNetwork", 65000},
		{"AllowAzureLoadBalancerInBound", "Inbound", "Allow", "AzureLoadBalancer", "*", 65001},
		{"DenyAllInBound", "Inbound", "Deny", "*", "*", 65500},
		{"AllowVnetOutBound", "Outbound", "Allow", "VirtualNetwork", "VirtualNetwork", 65000},
		{"AllowInternetOutBound", "Outbound", "Allow", "*", "Internet", 65001},
		{"DenyAllOutBound", "Outbound", "Deny", "*", "*", 65500},
	} {
		out = append(out, securityRuleJSON{ID: nsgID + "/defaultSecurityRules/" + d.name, Name: d.name,
			Type: "Microsoft.Network/networkSecurityGroups/defaultSecurityRules",
			Properties: securityRuleProperties{Protocol: "*", SourcePortRange: "*", DestinationPortRange: "*",
				SourceAddressPrefix: d.src, DestinationAddressPrefix: d.dst, Access: d.access, Priority: d.prio,
				Direction: d.dir, ProvisioningState: "Succeeded"}})
	}
	return out
}

func asgDoc(a *asg) asgJSON {
	doc := asgJSON{ID: a.id, Name: a.name, Type: "Microsoft.Network/applicationSecurityGroups", Location: a.location, Tags: a.tags}
	doc.Properties.ProvisioningState = "Succeeded"
	return doc
}

func (s *Server) nsgItems() []listItem {
	users := s.nsgInterfaces()
	out := make([]listItem, 0, len(s.nsgs))
	for key, g := range s.nsgs {
		out = append(out, listItem{key: key, doc: s.nsgDoc(g, users)})
	}
	return out
}

func (s *Server) asgItems() []listItem {
	out := make([]listItem, 0, len(s.asgs))
	for key, a := range s.asgs {
		out = append(out, listItem{key: key, doc: asgDoc(a)})
	}
	return out
}
