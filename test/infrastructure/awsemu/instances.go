package awsemu

import (
	"encoding/xml"
	"net/netip"
	"slices"
	"strconv"
)

// terminate ends an instance: its state becomes terminated and its
// interfaces are deleted; describes keep showing it, as EC2 does for a while.
func (r *region) terminate(i *instance) {
	i.state = "terminated"
	for _, e := range i.enis {
		delete(r.enis, e)
	}
	i.enis = nil
}

type instanceStateChangeXML struct {
	InstanceID string           `xml:"instanceId"`
	Current    instanceStateXML `xml:"currentState"`
	Previous   instanceStateXML `xml:"previousState"`
}

type terminateInstancesResponse struct {
	XMLName xml.Name `xml:"TerminateInstancesResponse"`
	responseMeta
	Instances []instanceStateChangeXML `xml:"instancesSet>item"`
}

func stateOf(name string) instanceStateXML {
	return instanceStateXML{Code: stateCodes[name], Name: name}
}

// terminateInstances serves TerminateInstances (InstanceId.N). An unknown
// id fails the whole call, as on EC2; terminating a terminated instance
// again is no error.
func (s *Server) terminateInstances(req *request) (any, *apiError) {
	ids := stringList(req.params, "InstanceId")
	if len(ids) == 0 {
		return nil, errMissingParameter("InstanceId")
	}
	for _, id := range ids {
		if req.region.instances[id] == nil {
			return nil, errClient("InvalidInstanceID.NotFound", "The instance ID '%s' does not exist", id)
		}
	}
	resp := &terminateInstancesResponse{}
	for _, id := range ids {
		i := req.region.instances[id]
		prev := i.state
		req.region.terminate(i)
		resp.Instances = append(resp.Instances, instanceStateChangeXML{InstanceID: id, Current: stateOf(i.state), Previous: stateOf(prev)})
	}
	return resp, nil
}

type assignedIPXML struct {
	PrivateIP string `xml:"privateIpAddress"`
}

type assignPrivateIPsResponse struct {
	XMLName xml.Name `xml:"AssignPrivateIpAddressesResponse"`
	responseMeta
	NetworkInterfaceID string          `xml:"networkInterfaceId"`
	Assigned           []assignedIPXML `xml:"assignedPrivateIpAddressesSet>item"`
}

// assignPrivateIPs serves AssignPrivateIpAddresses: the addresses
// PrivateIpAddress.N, or SecondaryPrivateIpAddressCount fresh ones of the
// VPC, become secondary private addresses of the interface. An address
// outside the VPC or held by an interface fails the call.
func (s *Server) assignPrivateIPs(req *request) (any, *apiError) {
	e, aerr := interfaceOf(req)
	if aerr != nil {
		return nil, aerr
	}
	v := req.region.vpcs[e.vpcID]
	ips := stringList(req.params, "PrivateIpAddress")
	if n := req.params.Get("SecondaryPrivateIpAddressCount"); n != "" {
		count, err := strconv.Atoi(n)
		if err != nil || count < 1 || len(ips) > 0 {
			return nil, errInvalidParameterValue("SecondaryPrivateIpAddressCount %q: want a positive number, without PrivateIpAddress", n)
		}
		for range count {
			ip, err := v.allocIP()
			if err != nil {
				return nil, errClient("InsufficientFreeAddressesInSubnet", "%v", err)
			}
			ips = append(ips, ip)
		}
	}
	if len(ips) == 0 {
		return nil, errMissingParameter("PrivateIpAddress or SecondaryPrivateIpAddressCount")
	}
	for _, ip := range ips {
		addr, err := netip.ParseAddr(ip)
		if err != nil || !v.cidr.Contains(addr) {
			return nil, errInvalidParameterValue("Address %s does not fall within the subnet's address range", ip)
		}
		if req.region.addressInUse(ip) {
			return nil, errInvalidParameterValue("The specified address %s is already in use", ip)
		}
	}
	resp := &assignPrivateIPsResponse{NetworkInterfaceID: e.id}
	for _, ip := range ips {
		e.privateIPs = append(e.privateIPs, ip)
		resp.Assigned = append(resp.Assigned, assignedIPXML{PrivateIP: ip})
	}
	return resp, nil
}

// unassignPrivateIPs serves UnassignPrivateIpAddresses: the secondary
// addresses PrivateIpAddress.N leave the interface. The primary address
// cannot be unassigned.
func (s *Server) unassignPrivateIPs(req *request) (any, *apiError) {
	e, aerr := interfaceOf(req)
	if aerr != nil {
		return nil, aerr
	}
	ips := stringList(req.params, "PrivateIpAddress")
	if len(ips) == 0 {
		return nil, errMissingParameter("PrivateIpAddress")
	}
	for _, ip := range ips {
		at := slices.Index(e.privateIPs, ip)
		if at < 0 {
			return nil, errInvalidParameterValue("Some of the specified addresses are not assigned to interface %s", e.id)
		}
		if at == 0 {
			return nil, errInvalidParameterValue("The primary private address %s of interface %s cannot be unassigned", ip, e.id)
		}
	}
	e.privateIPs = slices.DeleteFunc(e.privateIPs, func(ip string) bool { return slices.Contains(ips, ip) })
	return &returnResponse{XMLName: xml.Name{Local: "UnassignPrivateIpAddressesResponse"}, Return: true}, nil
}

// interfaceOf is the interface NetworkInterfaceId names.
func interfaceOf(req *request) (*eni, *apiError) {
	id := req.params.Get("NetworkInterfaceId")
	if id == "" {
		return nil, errMissingParameter("NetworkInterfaceId")
	}
	e := req.region.enis[id]
	if e == nil {
		return nil, errClient("InvalidNetworkInterfaceID.NotFound", "The networkInterface ID '%s' does not exist", id)
	}
	return e, nil
}

// addressInUse reports whether an interface of the region holds ip.
func (r *region) addressInUse(ip string) bool {
	for _, e := range r.enis {
		if slices.Contains(e.privateIPs, ip) {
			return true
		}
	}
	return false
}
