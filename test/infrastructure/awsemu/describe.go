package awsemu

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
)

func (s *Server) describeRegions(req *request) (any, *apiError) {
	names := stringList(req.params, "RegionName")
	for _, n := range names {
		if _, ok := s.regions[n]; !ok {
			return nil, errInvalidParameterValue("Invalid region(s): %s", n)
		}
	}
	if len(names) == 0 {
		names = slices.Sorted(maps.Keys(s.regions))
	}
	resp := &describeRegionsResponse{}
	for _, n := range names {
		resp.Regions = append(resp.Regions, regionXML{RegionName: n, Endpoint: "ec2." + n + ".amazonaws.com", OptInStatus: "opt-in-not-required"})
	}
	return resp, nil
}

func (s *Server) describeVpcs(req *request) (any, *apiError) {
	reg := req.region
	max, aerr := maxResults(req.params, 5, 1000, s.opts.DefaultPageSize)
	if aerr != nil {
		return nil, aerr
	}
	ids, aerr := lookupIDs(stringList(req.params, "VpcId"), sortedKeys(reg.vpcs),
		func(id string) bool { return reg.vpcs[id] != nil },
		func(id string) *apiError {
			return errClient("InvalidVpcID.NotFound", "The vpc ID '%s' does not exist", id)
		})
	if aerr != nil {
		return nil, aerr
	}
	var selected []string
	fs := filters(req.params)
	for _, id := range ids {
		v := reg.vpcs[id]
		ok, aerr := matches(fs, func(name string) ([]string, bool) {
			switch name {
			case "vpc-id":
				return []string{v.id}, true
			case "cidr", "cidr-block":
				return []string{v.cidr.String()}, true
			case "state":
				return []string{"available"}, true
			case "owner-id":
				return []string{s.opts.OwnerID}, true
			}
			return tagField(v.tags, name)
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
	resp := &describeVpcsResponse{NextToken: next}
	for _, id := range pageIDs {
		v := reg.vpcs[id]
		resp.Vpcs = append(resp.Vpcs, vpcXML{VpcID: v.id, State: "available", CidrBlock: v.cidr.String(), OwnerID: s.opts.OwnerID, Tags: tagsXML(v.tags)})
	}
	return resp, nil
}

func (s *Server) describeInstances(req *request) (any, *apiError) {
	reg := req.region
	requested := stringList(req.params, "InstanceId")
	if len(requested) > 0 && req.params.Get("MaxResults") != "" {
		return nil, errClient("InvalidParameterCombination", "The parameter instancesSet cannot be used with the parameter maxResults")
	}
	max, aerr := maxResults(req.params, 5, 1000, s.opts.DefaultPageSize)
	if aerr != nil {
		return nil, aerr
	}
	var visible []string
	for id, i := range reg.instances {
		if i.visible() {
			visible = append(visible, id)
		}
	}
	// Eventual consistency: this call is one of the k that do not see new
	// instances yet.
	for _, i := range reg.instances {
		i.hiddenFor--
	}
	ids, aerr := lookupIDs(requested, visible,
		func(id string) bool { i := reg.instances[id]; return i != nil && i.visible() },
		func(id string) *apiError {
			return errClient("InvalidInstanceID.NotFound", "The instance ID '%s' does not exist", id)
		})
	if aerr != nil {
		return nil, aerr
	}
	var selected []string
	fs := filters(req.params)
	for _, id := range ids {
		ok, aerr := matches(fs, reg.instanceFields(reg.instances[id]))
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
	resp := &describeInstancesResponse{NextToken: next}
	for _, id := range pageIDs {
		resp.Reservations = append(resp.Reservations, reservationXML{
			ReservationID: "r-" + id[2:],
			OwnerID:       s.opts.OwnerID,
			Instances:     []instanceXML{s.instanceXML(reg, reg.instances[id])},
		})
	}
	return resp, nil
}

func (r *region) instanceFields(i *instance) fieldFunc {
	return func(name string) ([]string, bool) {
		private, public := r.primaryIP(i)
		switch name {
		case "instance-id":
			return []string{i.id}, true
		case "vpc-id":
			return []string{i.vpcID}, true
		case "subnet-id":
			return []string{i.subnetID}, true
		case "availability-zone":
			return []string{i.zone}, true
		case "instance-type":
			return []string{i.instanceType}, true
		case "instance-state-name":
			return []string{i.state}, true
		case "instance-state-code":
			return []string{strconv.Itoa(stateCodes[i.state])}, true
		case "private-ip-address":
			return []string{private}, true
		case "ip-address":
			return []string{public}, true
		case "network-interface.network-interface-id":
			return i.enis, true
		case "instance.group-id":
			var out []string
			for _, id := range i.enis {
				if e := r.enis[id]; e != nil {
					out = append(out, e.groups...)
				}
			}
			return out, true
		}
		return tagField(i.tags, name)
	}
}

func (s *Server) instanceXML(reg *region, i *instance) instanceXML {
	private, public := reg.primaryIP(i)
	x := instanceXML{
		InstanceID:   i.id,
		InstanceType: i.instanceType,
		State:        instanceStateXML{Code: stateCodes[i.state], Name: i.state},
		Placement:    placementXML{AvailabilityZone: i.zone},
		PrivateIP:    private,
		PublicIP:     public,
		Tags:         tagsXML(i.tags),
	}
	if i.state == "terminated" {
		return x
	}
	x.SubnetID, x.VpcID = i.subnetID, i.vpcID
	for _, id := range i.enis {
		if e := reg.enis[id]; e != nil {
			n := s.nicXML(reg, e)
			n.Tags = nil // an instance's interfaces carry no tags
			x.NICs = append(x.NICs, n)
			if e.device == 0 {
				x.Groups = n.Groups
			}
		}
	}
	return x
}

func (s *Server) nicXML(reg *region, e *eni) nicXML {
	x := nicXML{
		NetworkInterfaceID: e.id,
		SubnetID:           e.subnetID,
		VpcID:              e.vpcID,
		OwnerID:            s.opts.OwnerID,
		Status:             "available",
		MacAddress:         e.mac,
		Tags:               tagsXML(e.tags),
		Description:        e.description,
		InterfaceType:      cmp.Or(e.interfaceType, "interface"),
		RequesterID:        e.requesterID,
		RequesterManaged:   e.requesterID != "",
	}
	if e.instanceID != "" {
		x.Status = "in-use"
		x.Attachment = &attachmentXML{AttachmentID: "eni-attach-" + e.id[4:], InstanceID: e.instanceID, DeviceIndex: e.device, Status: "attached"}
		if i := reg.instances[e.instanceID]; i != nil {
			x.AvailabilityZone = i.zone
		}
	}
	for _, g := range e.groups {
		name := ""
		if sg := reg.groups[g]; sg != nil {
			name = sg.name
		}
		x.Groups = append(x.Groups, groupXML{GroupID: g, GroupName: name})
	}
	for n, ip := range e.privateIPs {
		p := privateIPXML{PrivateIP: ip, Primary: n == 0}
		if n == 0 {
			x.PrivateIP = ip
			if e.publicIP != "" {
				p.Association = &associationXML{PublicIP: e.publicIP}
				x.Association = p.Association
			}
		}
		x.PrivateIPs = append(x.PrivateIPs, p)
	}
	return x
}

func (s *Server) describeNetworkInterfaces(req *request) (any, *apiError) {
	reg := req.region
	max, aerr := maxResults(req.params, 5, 1000, s.opts.DefaultPageSize)
	if aerr != nil {
		return nil, aerr
	}
	visible := func(e *eni) bool {
		i := reg.instances[e.instanceID]
		return e.instanceID == "" || (i != nil && i.visible())
	}
	var all []string
	for id, e := range reg.enis {
		if visible(e) {
			all = append(all, id)
		}
	}
	ids, aerr := lookupIDs(stringList(req.params, "NetworkInterfaceId"), all,
		func(id string) bool { e := reg.enis[id]; return e != nil && visible(e) },
		func(id string) *apiError {
			return errClient("InvalidNetworkInterfaceID.NotFound", "The networkInterface ID '%s' does not exist", id)
		})
	if aerr != nil {
		return nil, aerr
	}
	var selected []string
	fs := filters(req.params)
	for _, id := range ids {
		e := reg.enis[id]
		ok, aerr := matches(fs, func(name string) ([]string, bool) {
			switch name {
			case "network-interface-id":
				return []string{e.id}, true
			case "vpc-id":
				return []string{e.vpcID}, true
			case "subnet-id":
				return []string{e.subnetID}, true
			case "attachment.instance-id":
				return []string{e.instanceID}, true
			case "group-id":
				return e.groups, true
			case "private-ip-address":
				return e.privateIPs, true
			case "mac-address":
				return []string{e.mac}, true
			case "description":
				return []string{e.description}, true
			case "interface-type":
				return []string{cmp.Or(e.interfaceType, "interface")}, true
			case "requester-id":
				return []string{e.requesterID}, true
			case "requester-managed":
				return []string{strconv.FormatBool(e.requesterID != "")}, true
			}
			return tagField(e.tags, name)
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
	resp := &describeNetworkInterfacesResponse{NextToken: next}
	for _, id := range pageIDs {
		resp.NICs = append(resp.NICs, s.nicXML(reg, reg.enis[id]))
	}
	return resp, nil
}
