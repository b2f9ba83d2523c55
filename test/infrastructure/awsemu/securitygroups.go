package awsemu

import (
	"encoding/xml"
	"slices"
	"strings"
)

func (s *Server) describeSecurityGroups(req *request) (any, *apiError) {
	reg := req.region
	max, aerr := maxResults(req.params, 5, 1000, s.opts.DefaultPageSize)
	if aerr != nil {
		return nil, aerr
	}
	ids, aerr := lookupIDs(stringList(req.params, "GroupId"), sortedKeys(reg.groups),
		func(id string) bool { return reg.groups[id] != nil },
		func(id string) *apiError {
			return errClient("InvalidGroup.NotFound", "The security group '%s' does not exist", id)
		})
	if aerr != nil {
		return nil, aerr
	}
	names := stringList(req.params, "GroupName")
	fs := filters(req.params)
	var selected []string
	for _, id := range ids {
		g := reg.groups[id]
		if len(names) > 0 && !slices.Contains(names, g.name) {
			continue
		}
		ok, aerr := matches(fs, func(name string) ([]string, bool) {
			switch name {
			case "group-id":
				return []string{g.id}, true
			case "group-name":
				return []string{g.name}, true
			case "vpc-id":
				return []string{g.vpcID}, true
			case "description":
				return []string{g.description}, true
			case "owner-id":
				return []string{s.opts.OwnerID}, true
			}
			return tagField(g.tags, name)
		})
		if aerr != nil {
			return nil, aerr
		}
		if ok {
			selected = append(selected, id)
		}
	}
	pageIDs, next, aerr := page(selected, req.params.Get("NextToken"), max)
	if aerr != nil {
		return nil, aerr
	}
	resp := &describeSecurityGroupsResponse{NextToken: next}
	for _, id := range pageIDs {
		g := reg.groups[id]
		resp.Groups = append(resp.Groups, securityGroupXML{
			OwnerID: s.opts.OwnerID, GroupID: g.id, GroupName: g.name, Description: g.description, VpcID: g.vpcID,
			Ingress: s.permissionsXML(g.ingress), Egress: s.permissionsXML(g.egress), Tags: tagsXML(g.tags),
		})
	}
	return resp, nil
}

func (s *Server) createSecurityGroup(req *request) (any, *apiError) {
	reg, p := req.region, req.params
	name, desc, vpcID := p.Get("GroupName"), p.Get("GroupDescription"), p.Get("VpcId")
	switch {
	case name == "":
		return nil, errMissingParameter("GroupName")
	case desc == "":
		return nil, errMissingParameter("GroupDescription")
	case vpcID == "":
		return nil, errClient("VPCIdNotSpecified", "No default VPC for this user")
	case strings.HasPrefix(name, "sg-") || len(name) > 255:
		return nil, errInvalidParameterValue("Value (%s) for parameter GroupName is invalid. Group names may not be in the format sg-* and are at most 255 characters.", name)
	}
	if reg.vpcs[vpcID] == nil {
		return nil, errClient("InvalidVpcID.NotFound", "The vpc ID '%s' does not exist", vpcID)
	}
	inVPC := 0
	for _, g := range reg.groups {
		if g.vpcID != vpcID {
			continue
		}
		inVPC++
		if g.name == name {
			return nil, errClient("InvalidGroup.Duplicate", "The security group '%s' already exists for VPC '%s'", name, vpcID)
		}
	}
	if inVPC >= s.opts.Quotas.GroupsPerVPC {
		return nil, errClient("SecurityGroupLimitExceeded", "The maximum number of security groups for VPC '%s' has been reached.", vpcID)
	}
	tags := map[string]string{}
	for _, spec := range members(p, "TagSpecification") {
		t, aerr := tagList(spec, "Tag")
		if aerr != nil {
			return nil, aerr
		}
		for k, v := range t {
			tags[k] = v
		}
	}
	g := s.addGroup(reg, vpcID, name, desc, tags)
	return &createSecurityGroupResponse{Return: true, GroupID: g.id, Tags: tagsXML(g.tags)}, nil
}

// addGroup creates a group with EC2's default rule: all egress allowed.
func (s *Server) addGroup(reg *region, vpcID, name, desc string, tags map[string]string) *securityGroup {
	g := &securityGroup{
		id: s.newID("sg"), name: name, description: desc, vpcID: vpcID, tags: copyTags(tags),
		egress: []rule{{protocol: "-1", cidr: "0.0.0.0/0"}},
	}
	reg.groups[g.id] = g
	return g
}

// groupParam finds the group a call names by GroupId (or GroupName).
func groupParam(reg *region, req *request) (*securityGroup, *apiError) {
	id, name := req.params.Get("GroupId"), req.params.Get("GroupName")
	if id == "" && name == "" {
		return nil, errMissingParameter("GroupId")
	}
	for _, g := range reg.groups {
		if (id != "" && g.id == id) || (id == "" && g.name == name) {
			return g, nil
		}
	}
	return nil, errClient("InvalidGroup.NotFound", "The security group '%s' does not exist", id+name)
}

func (s *Server) deleteSecurityGroup(req *request) (any, *apiError) {
	reg := req.region
	g, aerr := groupParam(reg, req)
	if aerr != nil {
		return nil, aerr
	}
	if g.name == "default" {
		return nil, errClient("CannotDelete", "the specified group: \"%s\" name: \"default\" cannot be deleted by a user", g.id)
	}
	for _, e := range reg.enis {
		if slices.Contains(e.groups, g.id) {
			return nil, errClient("DependencyViolation", "resource %s has a dependent object", g.id)
		}
	}
	for _, other := range reg.groups {
		if other.id != g.id && (referencesGroup(other.ingress, g.id) || referencesGroup(other.egress, g.id)) {
			return nil, errClient("DependencyViolation", "resource %s has a dependent object", g.id)
		}
	}
	delete(reg.groups, g.id)
	return &returnResponse{XMLName: xml.Name{Local: "DeleteSecurityGroupResponse"}, Return: true}, nil
}

func referencesGroup(rules []rule, id string) bool {
	return slices.ContainsFunc(rules, func(r rule) bool { return r.groupID == id })
}

func (s *Server) authorizeIngress(req *request) (any, *apiError) { return s.authorize(req, false) }
func (s *Server) authorizeEgress(req *request) (any, *apiError)  { return s.authorize(req, true) }
func (s *Server) revokeIngress(req *request) (any, *apiError)    { return s.revoke(req, false) }
func (s *Server) revokeEgress(req *request) (any, *apiError)     { return s.revoke(req, true) }

// authorize adds every rule of the call, or none: a duplicate or a rule
// over the quota fails the whole call, as EC2 does.
func (s *Server) authorize(req *request, egress bool) (any, *apiError) {
	reg := req.region
	g, aerr := groupParam(reg, req)
	if aerr != nil {
		return nil, aerr
	}
	add, aerr := s.parsePermissions(reg, req.params, g.vpcID)
	if aerr != nil {
		return nil, aerr
	}
	rules := &g.ingress
	if egress {
		rules = &g.egress
	}
	seen := map[rule]bool{}
	for _, r := range *rules {
		seen[r.key()] = true
	}
	for _, r := range add {
		if seen[r.key()] {
			return nil, errClient("InvalidPermission.Duplicate", "the specified rule \"%s\" already exists", r.describe())
		}
		seen[r.key()] = true
	}
	if len(*rules)+len(add) > s.opts.Quotas.RulesPerGroup {
		return nil, errClient("RulesPerSecurityGroupLimitExceeded", "The maximum number of rules per security group has been reached.")
	}
	*rules = append(*rules, add...)
	return &returnResponse{XMLName: xml.Name{Local: req.action + "Response"}, Return: true}, nil
}

// revoke removes the rules of the call that exist and reports the others
// as unknown, as EC2 does.
func (s *Server) revoke(req *request, egress bool) (any, *apiError) {
	reg := req.region
	g, aerr := groupParam(reg, req)
	if aerr != nil {
		return nil, aerr
	}
	remove, aerr := s.parsePermissions(reg, req.params, g.vpcID)
	if aerr != nil {
		return nil, aerr
	}
	rules := &g.ingress
	if egress {
		rules = &g.egress
	}
	var unknown []rule
	for _, r := range remove {
		i := slices.IndexFunc(*rules, func(have rule) bool { return have.key() == r.key() })
		if i < 0 {
			unknown = append(unknown, r)
			continue
		}
		*rules = slices.Delete(*rules, i, i+1)
	}
	return &revokeResponse{XMLName: xml.Name{Local: req.action + "Response"}, Return: true, Unknown: s.permissionsXML(unknown)}, nil
}

func (s *Server) modifyNetworkInterfaceAttribute(req *request) (any, *apiError) {
	reg := req.region
	id := req.params.Get("NetworkInterfaceId")
	if id == "" {
		return nil, errMissingParameter("NetworkInterfaceId")
	}
	e := reg.enis[id]
	if e == nil {
		return nil, errClient("InvalidNetworkInterfaceID.NotFound", "The networkInterface ID '%s' does not exist", id)
	}
	groups := stringList(req.params, "SecurityGroupId")
	if len(groups) > 0 && e.requesterID != "" {
		return nil, errClient("OperationNotPermitted", "The security groups of requester-managed network interface %s are those of the service that created it", id)
	}
	if len(groups) > 0 {
		for _, gid := range groups {
			g := reg.groups[gid]
			if g == nil {
				return nil, errClient("InvalidGroup.NotFound", "The security group '%s' does not exist", gid)
			}
			if g.vpcID != e.vpcID {
				return nil, errClient("InvalidParameter", "Security group %s and interface %s belong to different networks.", gid, id)
			}
		}
		groups = slices.Compact(slices.Sorted(slices.Values(groups)))
		if len(groups) > s.opts.Quotas.GroupsPerInterface {
			return nil, errClient("SecurityGroupsPerInterfaceLimitExceeded", "The maximum number of security groups per interface has been reached.")
		}
		e.groups = groups
	}
	return &returnResponse{XMLName: xml.Name{Local: "ModifyNetworkInterfaceAttributeResponse"}, Return: true}, nil
}
