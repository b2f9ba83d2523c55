package sandbox

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// AgentVM is an agented VM of the local cloud that the sandbox plays in a
// network namespace of its own, with the VM's private IP, a TCP listener
// and a VM agent.
type AgentVM struct {
	// Name is the VM's cloud name, made safe for file and namespace names,
	// and prefixed by its cloud ("azure-dev-build-1") when a VM of a cloud
	// before it (AWS, then Azure) has that name.
	Name string `json:"name"`
	// Cloud is the VM's provider (AWS, Azure); CloudName its name there.
	Cloud     cloudv1alpha1.CloudProvider `json:"cloud"`
	CloudName string                      `json:"cloudName"`
	// Cluster is the member that imports the VM, whose policy controller
	// its agent connects to at PolicyServer.
	Cluster      string `json:"cluster"`
	PolicyServer string `json:"policyServer"`
	// Object is the VirtualMachine's name in the cloud's namespace.
	Object string `json:"object"`
	// IP is the VM's primary private address, on the namespace's eth0.
	IP string `json:"ip"`
	// PrefixLen is the prefix length of IP on eth0: every VM of the plan
	// is on link with every other.
	PrefixLen int `json:"prefixLen"`
	// NetNS is the network namespace (ip netns) that plays the VM.
	NetNS string `json:"netns"`
	// Port is where the VM's TCP listener listens.
	Port int `json:"port"`
	// Veth is the bridge's end of the VM's veth pair, in the bridge's
	// namespace; the VM's end is eth0.
	Veth string `json:"veth"`
	// Network is, for a VM of an edge network, that network: the VM is
	// on its router's bridge, Gateway its default route (vmrouters.go).
	// Empty for the VMs on the sandbox's bridge.
	Network string `json:"network,omitempty"`
	Gateway string `json:"gateway,omitempty"`
}

// CIDR is the address of the VM's eth0, e.g. 10.20.0.11/24.
func (v AgentVM) CIDR() string { return fmt.Sprintf("%s/%d", v.IP, v.PrefixLen) }

// maxVMPrefixLen is the longest prefix VMs get: a /24 around their address,
// shortened until every planned VM is in it.
const maxVMPrefixLen = 24

// vmNetNSBase is the name of the network namespace that holds the bridge of
// the sandbox in dir; the VMs' namespaces are named after it, "-" and the
// VM. It carries a digest of the directory so that two sandboxes never
// share a name.
func vmNetNSBase(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	sum := sha256.Sum256([]byte(dir))
	return "ap-" + hex.EncodeToString(sum[:3])
}

// ownsNetNS reports whether a network namespace belongs to the sandbox
// whose bridge namespace is base.
func ownsNetNS(base, name string) bool {
	return name == base || strings.HasPrefix(name, base+"-")
}

// vmInventory is what one cloud member imported: its VirtualMachines and
// NetworkInterfaces in the cloud's namespace.
type vmInventory struct {
	member CloudMember
	vms    []cloudv1alpha1.VirtualMachine
	nics   []cloudv1alpha1.NetworkInterface
}

// planVMs picks the agented VMs, of the clouds each member imports, that
// are not going away, names them uniquely, and gives each the address of
// its primary interface, on one link; base is vmNetNSBase's. It fails
// while a VM has no interface with an IPv4 address yet, while a cloud has
// no agented VM yet, and when two VMs share an address.
func planVMs(base string, invs []vmInventory) ([]AgentVM, error) {
	var out []AgentVM
	for _, inv := range invs {
		vms, err := inv.playable()
		if err != nil {
			return nil, err
		}
		out = append(out, vms...)
	}
	slices.SortFunc(out, func(a, b AgentVM) int {
		return cmp.Or(cmp.Compare(slices.Index(emulatorClouds, a.Cloud), slices.Index(emulatorClouds, b.Cloud)),
			strings.Compare(a.CloudName, b.CloudName), strings.Compare(a.Object, b.Object))
	})
	nameVMs(base, out)
	byIP := map[string]string{}
	for _, v := range out {
		key := v.Network + "/" + v.IP
		if other, ok := byIP[key]; ok {
			return nil, fmt.Errorf("VMs %s and %s share the address %s: they cannot be played on one link (seed their networks with distinct CIDRs)", other, v.Name, v.IP)
		}
		byIP[key] = v.Name
	}
	slices.SortFunc(out, func(a, b AgentVM) int { return strings.Compare(a.Name, b.Name) })
	var bridged []AgentVM
	for _, v := range out {
		if v.Network == "" {
			bridged = append(bridged, v)
		}
	}
	bits := commonPrefixLen(bridged)
	for i := range out {
		out[i].PrefixLen = bits
	}
	return out, nil
}

// playable lists the member's agented VMs of the clouds it imports, with
// their addresses, unnamed; it fails unless every cloud has one.
func (inv vmInventory) playable() ([]AgentVM, error) {
	var out []AgentVM
	for _, vm := range inv.vms {
		if !playable(&vm) || !inv.member.Imports(vm.Spec.Provider) {
			continue
		}
		ip, ok := primaryIPv4(vm.Name, inv.nics)
		if !ok {
			return nil, fmt.Errorf("VirtualMachine %s/%s (%s) in %s has no primary interface with an IPv4 address yet", vm.Namespace, vm.Name, vm.Spec.CloudName, inv.member.Cluster)
		}
		out = append(out, AgentVM{Cloud: vm.Spec.Provider, CloudName: cmp.Or(vm.Spec.CloudName, vm.Name), Cluster: inv.member.Cluster,
			PolicyServer: inv.member.PolicyServer, Object: vm.Name, IP: ip.String(), Network: routedNetwork(&vm)})
	}
	for _, c := range inv.member.Clouds {
		if !slices.ContainsFunc(out, func(v AgentVM) bool { return v.Cloud == c }) {
			return nil, fmt.Errorf("no agented %s VM is imported into %s yet", c, inv.member.Cluster)
		}
	}
	return out, nil
}

// nameVMs names VMs, in order, after their cloud names; a name a VM of
// another cloud took gets the cloud as prefix ("azure-dev-build-1"), one a
// VM of the same cloud took the VirtualMachine's name as suffix.
func nameVMs(base string, vms []AgentVM) {
	takenBy := map[string]cloudv1alpha1.CloudProvider{}
	for i, vm := range vms {
		name := vmFileName(vm.CloudName)
		if by, taken := takenBy[name]; taken && by != vm.Cloud {
			name = vmFileName(string(vm.Cloud) + "-" + name)
		}
		if _, taken := takenBy[name]; taken {
			name = vmFileName(name + "-" + vm.Object)
		}
		takenBy[name] = vm.Cloud
		vms[i].Name, vms[i].NetNS, vms[i].Veth = name, base+"-"+name, vethName(name)
	}
}

// playable: an agented VM that is not going away.
func playable(vm *cloudv1alpha1.VirtualMachine) bool {
	switch vm.Spec.State {
	case cloudv1alpha1.VMStateTerminated, cloudv1alpha1.VMStateShuttingDown:
		return false
	}
	return vm.Spec.EnforcementMode == cloudv1alpha1.EnforcementAgented
}

// primaryIPv4 is the first IPv4 address of the VM's primary interface.
func primaryIPv4(vm string, nics []cloudv1alpha1.NetworkInterface) (netip.Addr, bool) {
	for _, n := range nics {
		if n.Spec.VirtualMachine != vm || !n.Spec.Primary {
			continue
		}
		for _, s := range n.Spec.PrivateIPs {
			if ip, err := netip.ParseAddr(s); err == nil && ip.Is4() {
				return ip, true
			}
		}
	}
	return netip.Addr{}, false
}

// commonPrefixLen is the longest prefix, at most maxVMPrefixLen, that
// holds every VM's address.
func commonPrefixLen(vms []AgentVM) int {
	bits := maxVMPrefixLen
	if len(vms) == 0 {
		return bits
	}
	first := netip.MustParseAddr(vms[0].IP)
	for _, v := range vms[1:] {
		ip := netip.MustParseAddr(v.IP)
		for bits > 0 && !netip.PrefixFrom(first, bits).Masked().Contains(ip) {
			bits--
		}
	}
	return bits
}

// vmFileName lowercases a VM name and replaces what is not a letter, a
// digit or "-" by "-", for namespace and file names.
func vmFileName(s string) string {
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			b[i] = '-'
		}
	}
	out := strings.Trim(string(b), "-")
	if len(out) > 200 {
		out = out[:200]
	}
	return cmp.Or(out, "vm")
}

// vethName is the bridge's end of a VM's veth pair: "v-<vm>", or a digest
// of the name when that is longer than an interface name may be (15).
func vethName(vm string) string {
	if name := "v-" + vm; len(name) <= 15 {
		return name
	}
	sum := sha256.Sum256([]byte(vm))
	return "v-" + hex.EncodeToString(sum[:6])
}

// findVM returns the planned VM called name, or whose name prefixed by
// its cloud is name ("aws-dev-build-1" for AWS's dev-build-1).
func findVM(vms []AgentVM, name string) (AgentVM, bool) {
	for _, v := range vms {
		if v.Name == name {
			return v, true
		}
	}
	for _, v := range vms {
		if strings.ToLower(string(v.Cloud))+"-"+v.Name == name {
			return v, true
		}
	}
	return AgentVM{}, false
}

// findVMByIP returns the planned VM whose address is ip.
func findVMByIP(vms []AgentVM, ip string) (AgentVM, bool) {
	for _, v := range vms {
		if v.IP == ip {
			return v, true
		}
	}
	return AgentVM{}, false
}
