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

	cloudv1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// AgentVM is an agented VM of the local cloud that the sandbox plays in a
// network namespace of its own, with the VM's private IP, a TCP listener
// and a VM agent.
type AgentVM struct {
	// Name is the VM's cloud name, made safe for file and namespace names.
	Name string `json:"name"`
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

// planVMs picks the agented AWS VMs that are not going away and the
// address of their primary interface; base is vmNetNSBase's. It fails
// while a VM has no interface with an IPv4 address yet.
func planVMs(base string, vms []cloudv1.VirtualMachine, nics []cloudv1.NetworkInterface) ([]AgentVM, error) {
	var out []AgentVM
	used := map[string]bool{}
	for _, vm := range vms {
		if !playable(&vm) {
			continue
		}
		ip, ok := primaryIPv4(vm.Name, nics)
		if !ok {
			return nil, fmt.Errorf("VirtualMachine %s/%s (%s) has no primary interface with an IPv4 address yet", vm.Namespace, vm.Name, vm.Spec.CloudName)
		}
		name := vmFileName(cmp.Or(vm.Spec.CloudName, vm.Name))
		if used[name] {
			name = vmFileName(name + "-" + vm.Name)
		}
		used[name] = true
		out = append(out, AgentVM{Name: name, Object: vm.Name, IP: ip.String(), NetNS: base + "-" + name, Veth: vethName(name)})
	}
	slices.SortFunc(out, func(a, b AgentVM) int { return strings.Compare(a.Name, b.Name) })
	bits := commonPrefixLen(out)
	for i := range out {
		out[i].PrefixLen = bits
	}
	return out, nil
}

// playable: an agented AWS VM that is not going away.
func playable(vm *cloudv1.VirtualMachine) bool {
	switch vm.Spec.State {
	case cloudv1.VMStateTerminated, cloudv1.VMStateShuttingDown:
		return false
	}
	return vm.Spec.Provider == cloudv1.ProviderAWS && vm.Spec.EnforcementMode == cloudv1.EnforcementAgented
}

// primaryIPv4 is the first IPv4 address of the VM's primary interface.
func primaryIPv4(vm string, nics []cloudv1.NetworkInterface) (netip.Addr, bool) {
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

// findVM returns the planned VM called name.
func findVM(vms []AgentVM, name string) (AgentVM, bool) {
	for _, v := range vms {
		if v.Name == name {
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
