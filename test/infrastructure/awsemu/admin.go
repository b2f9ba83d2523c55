package awsemu

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
)

// This file is the Go API tests and the sandbox use to shape the emulated
// cloud. It bypasses authentication, faults and call counters.

// VPCSpec describes a VPC to add.
type VPCSpec struct {
	// Region of the VPC; required.
	Region string
	// CIDR of the VPC; default 10.0.0.0/16.
	CIDR string
	// Name becomes the Name tag, if set.
	Name string
	// Tags of the VPC.
	Tags map[string]string
}

// AddVPC adds a VPC with one subnet and its "default" security group, and
// returns the VPC's id.
func (s *Server) AddVPC(spec VPCSpec) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	reg, err := s.region(spec.Region)
	if err != nil {
		return "", err
	}
	if spec.CIDR == "" {
		spec.CIDR = "10.0.0.0/16"
	}
	cidr, err := netip.ParsePrefix(spec.CIDR)
	if err != nil || !cidr.Addr().Is4() {
		return "", fmt.Errorf("VPC CIDR %q is not an IPv4 prefix", spec.CIDR)
	}
	v := &vpc{id: s.newID("vpc"), cidr: cidr.Masked(), subnetID: s.newID("subnet"), tags: copyTags(spec.Tags)}
	if spec.Name != "" {
		v.tags["Name"] = spec.Name
	}
	reg.vpcs[v.id] = v
	g := s.addGroup(reg, v.id, "default", "default VPC security group", nil)
	g.ingress = []rule{{protocol: "-1", groupID: g.id}}
	v.defaultGroup = g.id
	return v.id, nil
}

// InstanceSpec describes an instance to add.
type InstanceSpec struct {
	// Region and VPCID place the instance; both required.
	Region string
	VPCID  string
	// Name becomes the Name tag, if set.
	Name string
	// Tags of the instance.
	Tags map[string]string
	// Zone; default the region's "a" zone.
	Zone string
	// InstanceType; default t3.micro.
	InstanceType string
	// State; default running.
	State string
	// NICs is the number of network interfaces; default 1.
	NICs int
	// PublicIP gives the primary interface a public address.
	PublicIP bool
	// PrivateIP is the primary interface's address; default the VPC's next
	// free one.
	PrivateIP string
	// SecurityGroupIDs of every interface; default the VPC's default group.
	SecurityGroupIDs []string
}

// Instance is what AddInstance created.
type Instance struct {
	ID string
	// NICs are the interface ids, by device index.
	NICs []string
	// PrivateIP is the primary private address.
	PrivateIP string
}

// AddInstance adds an instance with its interfaces. If HideNewInstances is
// in effect, describes do not see it at once.
func (s *Server) AddInstance(spec InstanceSpec) (Instance, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	reg, err := s.region(spec.Region)
	if err != nil {
		return Instance{}, err
	}
	v := reg.vpcs[spec.VPCID]
	if v == nil {
		return Instance{}, fmt.Errorf("VPC %s not found in %s", spec.VPCID, spec.Region)
	}
	if _, ok := stateCodes[spec.State]; spec.State != "" && !ok {
		return Instance{}, fmt.Errorf("instance state %q is not an EC2 state", spec.State)
	}
	i := &instance{
		id: s.newID("i"), vpcID: v.id, subnetID: v.subnetID, zone: spec.Zone, instanceType: spec.InstanceType,
		state: spec.State, tags: copyTags(spec.Tags), hiddenFor: s.hideNewFor,
	}
	i.zone = cmp.Or(i.zone, spec.Region+"a")
	i.instanceType = cmp.Or(i.instanceType, "t3.micro")
	i.state = cmp.Or(i.state, "running")
	if spec.Name != "" {
		i.tags["Name"] = spec.Name
	}
	groups := slices.Clone(spec.SecurityGroupIDs)
	if len(groups) == 0 {
		groups = []string{v.defaultGroup}
	}
	out := Instance{ID: i.id}
	for n := range max(spec.NICs, 1) {
		ip, err := v.allocIP()
		if n == 0 && spec.PrivateIP != "" {
			ip, err = spec.PrivateIP, v.checkFree(reg, spec.PrivateIP)
		}
		if err != nil {
			return Instance{}, err
		}
		e := &eni{
			id: s.newID("eni"), vpcID: v.id, subnetID: v.subnetID, mac: s.newMAC(), privateIPs: []string{ip},
			groups: slices.Clone(groups), tags: map[string]string{}, instanceID: i.id, device: n,
		}
		if n == 0 && spec.PublicIP {
			e.publicIP = s.newPublicIP()
		}
		reg.enis[e.id] = e
		i.enis = append(i.enis, e.id)
		out.NICs = append(out.NICs, e.id)
	}
	out.PrivateIP = reg.enis[i.enis[0]].privateIPs[0]
	reg.instances[i.id] = i
	return out, nil
}

// newPublicIP hands out addresses of 198.18.0.0/15, the benchmarking range.
func (s *Server) newPublicIP() string {
	s.seq++
	n := s.seq % (1 << 17)
	return netip.AddrFrom4([4]byte{198, 18 + byte(n>>16), byte(n >> 8), byte(n)}).String()
}

// Terminate terminates an instance: its state becomes terminated and its
// interfaces are deleted. Describes keep showing it, as EC2 does for a
// while, until RemoveInstance.
func (s *Server) Terminate(regionName, id string) error {
	return s.withInstance(regionName, id, func(reg *region, i *instance) { reg.terminate(i) })
}

// RemoveInstance forgets an instance, as EC2 does some time after it was
// terminated.
func (s *Server) RemoveInstance(regionName, id string) error {
	return s.withInstance(regionName, id, func(reg *region, i *instance) {
		for _, e := range i.enis {
			delete(reg.enis, e)
		}
		delete(reg.instances, id)
	})
}

// SetInstanceState sets an instance's state (pending, running, stopping,
// stopped, shutting-down); use Terminate for terminated.
func (s *Server) SetInstanceState(regionName, id, state string) error {
	if _, ok := stateCodes[state]; !ok || state == "terminated" {
		return fmt.Errorf("instance state %q cannot be set", state)
	}
	return s.withInstance(regionName, id, func(_ *region, i *instance) { i.state = state })
}

// SetPrivateIP changes the primary private address of an instance's
// primary interface.
func (s *Server) SetPrivateIP(regionName, id, ip string) error {
	if _, err := netip.ParseAddr(ip); err != nil {
		return fmt.Errorf("private IP %q: %w", ip, err)
	}
	return s.withInstance(regionName, id, func(reg *region, i *instance) {
		if len(i.enis) > 0 {
			reg.enis[i.enis[0]].privateIPs[0] = ip
		}
	})
}

// SetTags replaces every tag of a resource (instance, VPC, interface or
// security group).
func (s *Server) SetTags(regionName, id string, tags map[string]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	reg, err := s.region(regionName)
	if err != nil {
		return err
	}
	have, aerr := reg.tagsOf(id)
	if aerr != nil {
		return aerr
	}
	clear(have)
	for k, v := range tags {
		have[k] = v
	}
	return nil
}

// InterfaceGroups returns the security groups of a network interface.
func (s *Server) InterfaceGroups(regionName, eniID string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	reg, err := s.region(regionName)
	if err != nil {
		return nil, err
	}
	e := reg.enis[eniID]
	if e == nil {
		return nil, fmt.Errorf("network interface %s not found in %s", eniID, regionName)
	}
	return slices.Clone(e.groups), nil
}

func (s *Server) withInstance(regionName, id string, fn func(*region, *instance)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	reg, err := s.region(regionName)
	if err != nil {
		return err
	}
	i := reg.instances[id]
	if i == nil {
		return fmt.Errorf("instance %s not found in %s", id, regionName)
	}
	fn(reg, i)
	return nil
}

func (s *Server) region(name string) (*region, error) {
	reg := s.regions[name]
	if reg == nil {
		return nil, fmt.Errorf("region %q is not served by this emulator", name)
	}
	return reg, nil
}

// checkFree fails unless ip is a free address of the VPC.
func (v *vpc) checkFree(reg *region, ip string) error {
	addr, err := netip.ParseAddr(ip)
	if err != nil || !v.cidr.Contains(addr) {
		return fmt.Errorf("address %s is not in VPC %s (%s)", ip, v.id, v.cidr)
	}
	if reg.addressInUse(ip) {
		return fmt.Errorf("address %s is in use", ip)
	}
	return nil
}
