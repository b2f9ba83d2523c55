package azureemu

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
)

// This file is the Go API tests and the sandbox use to shape the emulated
// subscription. It bypasses authentication, faults and call counters.

// VNetSpec describes a virtual network to add.
type VNetSpec struct {
	// Location, e.g. eastus; required.
	Location string
	// Name of the VNet; required.
	Name string
	// ResourceGroup; default rg-<location>.
	ResourceGroup string
	// Prefix is the address space and the one subnet's prefix; default
	// 10.0.0.0/16.
	Prefix string
	Tags   map[string]string
}

// AddVNet adds a VNet with one subnet, "default", and returns its id.
func (s *Server) AddVNet(spec VNetSpec) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if spec.Location == "" || spec.Name == "" {
		return "", fmt.Errorf("a VNet needs a location and a name")
	}
	prefix, err := netip.ParsePrefix(cmp.Or(spec.Prefix, "10.0.0.0/16"))
	if err != nil || !prefix.Addr().Is4() {
		return "", fmt.Errorf("VNet prefix %q is not an IPv4 prefix", spec.Prefix)
	}
	id := s.resourceID(spec.ResourceGroup, spec.Location, "Microsoft.Network/virtualNetworks", spec.Name)
	if s.vnets[strings.ToLower(id)] != nil {
		return "", fmt.Errorf("VNet %s exists", id)
	}
	s.vnets[strings.ToLower(id)] = &vnet{
		id: id, name: spec.Name, location: spec.Location, prefix: prefix.Masked().String(),
		tags: maps.Clone(spec.Tags), subnetID: id + "/subnets/default",
	}
	return id, nil
}

// VMSpec describes a VM to add.
type VMSpec struct {
	// VNetID places the VM; required. The VM is in the VNet's location.
	VNetID string
	// Name of the VM; required, unique in its resource group.
	Name string
	// ResourceGroup; default the VNet's.
	ResourceGroup string
	// Size; default Standard_B1s.
	Size string
	// Zone, if any.
	Zone string
	// PowerState; default running.
	PowerState string
	// PublicIP gives the primary NIC a public address.
	PublicIP bool
	// PrivateIP is the primary NIC's address; default the VNet's next
	// free one.
	PrivateIP string
	// NSGID and ASGIDs are attached to every NIC, if set.
	NSGID  string
	ASGIDs []string
	// NICs is the number of interfaces; default 1.
	NICs int
	Tags map[string]string
}

// VM is what AddVM created.
type VM struct {
	ID string
	// NICs are the interface ids, primary first.
	NICs      []string
	PrivateIP string
}

// AddVM adds a VM with its NICs (and public IP). If HideNewVMs is in effect,
// lists do not see it at once.
func (s *Server) AddVM(spec VMSpec) (VM, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	vn := s.vnets[strings.ToLower(spec.VNetID)]
	if vn == nil || spec.Name == "" {
		return VM{}, fmt.Errorf("VNet %q not found or VM name empty", spec.VNetID)
	}
	rg := cmp.Or(spec.ResourceGroup, resourceGroupOf(vn.id))
	id := s.resourceID(rg, vn.location, "Microsoft.Compute/virtualMachines", spec.Name)
	if s.vms[strings.ToLower(id)] != nil {
		return VM{}, fmt.Errorf("VM %s exists", id)
	}
	s.seq++
	v := &vm{
		id: id, name: spec.Name, location: vn.location, resourceGroup: rg, size: cmp.Or(spec.Size, "Standard_B1s"),
		zone: spec.Zone, vmID: fmt.Sprintf("00000000-0000-4000-8000-%012x", s.seq), power: cmp.Or(spec.PowerState, "running"),
		provisioning: "Succeeded", tags: maps.Clone(spec.Tags), hiddenFor: s.hideNewFor,
	}
	out := VM{ID: id}
	for n := range max(spec.NICs, 1) {
		ip, err := vn.allocIP()
		if n == 0 && spec.PrivateIP != "" {
			ip, err = spec.PrivateIP, s.checkFree(vn, spec.PrivateIP)
		}
		if err != nil {
			return VM{}, err
		}
		s.seq++
		ni := &nic{
			id:   s.resourceID(rg, vn.location, "Microsoft.Network/networkInterfaces", fmt.Sprintf("%s-nic%d", spec.Name, n)),
			name: fmt.Sprintf("%s-nic%d", spec.Name, n), location: vn.location, vmID: id, primary: n == 0,
			mac: fmt.Sprintf("00-0D-3A-%02X-%02X-%02X", byte(s.seq>>16), byte(s.seq>>8), byte(s.seq)), nsg: spec.NSGID,
			privateIP: ip, subnetID: vn.subnetID, asgs: slices.Clone(spec.ASGIDs),
		}
		if n == 0 && spec.PublicIP {
			s.seq++
			pip := &publicIP{
				id:   s.resourceID(rg, vn.location, "Microsoft.Network/publicIPAddresses", spec.Name+"-ip"),
				name: spec.Name + "-ip", location: vn.location,
				address: netip.AddrFrom4([4]byte{198, 19, byte(s.seq >> 8), byte(s.seq)}).String(),
			}
			s.publicIPs[strings.ToLower(pip.id)] = pip
			ni.publicIPID = pip.id
		}
		s.nics[strings.ToLower(ni.id)] = ni
		v.nics = append(v.nics, ni.id)
		out.NICs = append(out.NICs, ni.id)
	}
	out.PrivateIP = s.nics[strings.ToLower(v.nics[0])].privateIP
	s.vms[strings.ToLower(id)] = v
	return out, nil
}

// DeleteVM deletes a VM with its NICs and public IPs, as deleting a VM with
// delete options set does.
func (s *Server) DeleteVM(id string) error {
	return s.withVM(id, func(v *vm) {
		for _, n := range v.nics {
			if ni := s.nics[strings.ToLower(n)]; ni != nil && ni.publicIPID != "" {
				delete(s.publicIPs, strings.ToLower(ni.publicIPID))
			}
			delete(s.nics, strings.ToLower(n))
		}
		delete(s.vms, strings.ToLower(v.id))
	})
}

// SetPowerState sets a VM's power state: starting, running, stopping,
// stopped, deallocating or deallocated.
func (s *Server) SetPowerState(id, state string) error {
	if !slices.Contains([]string{"starting", "running", "stopping", "stopped", "deallocating", "deallocated"}, state) {
		return fmt.Errorf("power state %q is not one of Azure's", state)
	}
	return s.withVM(id, func(v *vm) { v.power = state })
}

// SetPrivateIP changes the private address of a VM's primary NIC.
func (s *Server) SetPrivateIP(id, ip string) error {
	if _, err := netip.ParseAddr(ip); err != nil {
		return err
	}
	return s.withVM(id, func(v *vm) { s.nics[strings.ToLower(v.nics[0])].privateIP = ip })
}

// SetTags replaces the tags of a VM, NIC or VNet.
func (s *Server) SetTags(id string, tags map[string]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(id)
	switch {
	case s.vms[key] != nil:
		s.vms[key].tags = maps.Clone(tags)
	case s.nics[key] != nil:
		s.nics[key].tags = maps.Clone(tags)
	case s.vnets[key] != nil:
		s.vnets[key].tags = maps.Clone(tags)
	default:
		return fmt.Errorf("resource %s not found", id)
	}
	return nil
}

func (s *Server) withVM(id string, fn func(*vm)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vms[strings.ToLower(id)]
	if v == nil {
		return fmt.Errorf("VM %s not found", id)
	}
	fn(v)
	return nil
}

func (s *Server) resourceID(rg, location, typ, name string) string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/%s/%s", s.opts.SubscriptionID, cmp.Or(rg, "rg-"+location), typ, name)
}

func resourceGroupOf(id string) string {
	parts := strings.Split(id, "/")
	for i, p := range parts {
		if strings.EqualFold(p, "resourceGroups") && i+1 < len(parts) {
			return parts[i+1]
		}
	}
	return ""
}

func (v *vnet) allocIP() (string, error) {
	v.nextHost++
	p := netip.MustParsePrefix(v.prefix)
	base := p.Addr().As4()
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], binary.BigEndian.Uint32(base[:])+v.nextHost+3) // Azure keeps .1-.3
	addr := netip.AddrFrom4(b)
	if !p.Contains(addr) {
		return "", fmt.Errorf("VNet %s has no free address left", v.id)
	}
	return addr.String(), nil
}

// checkFree fails unless ip is in the VNet and no NIC of it has it.
func (s *Server) checkFree(vn *vnet, ip string) error {
	addr, err := netip.ParseAddr(ip)
	prefix, perr := netip.ParsePrefix(vn.prefix)
	if err != nil || perr != nil || !prefix.Contains(addr) {
		return fmt.Errorf("address %s is not in VNet %s (%s)", ip, vn.id, vn.prefix)
	}
	for _, n := range s.nics {
		if n.subnetID == vn.subnetID && n.privateIP == ip {
			return fmt.Errorf("address %s is in use in VNet %s", ip, vn.id)
		}
	}
	return nil
}
