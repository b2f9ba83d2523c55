package sandbox

import (
	"fmt"
	"net"
	"os/exec"
	"strings"

	"antreaplus.io/antreaplus/internal/netns"
)

// vmBridge is the bridge, in the bridge namespace, that joins the VMs.
const vmBridge = "br0"

// VMAgentsSupported fails, saying what to do, unless this process may
// create network namespaces and run nftables: root, ip(8) and nft(8), and
// setpriv(1) for the agents.
func VMAgentsSupported() error {
	if err := netns.Check("nft"); err != nil {
		return fmt.Errorf("--vm-agents plays each agented VM in a network namespace with nftables: %w", err)
	}
	// The agents run under their unit's capability bounding set.
	if _, err := exec.LookPath("setpriv"); err != nil {
		return fmt.Errorf("--vm-agents runs each VM agent with setpriv, which is missing: install util-linux: %w", err)
	}
	return nil
}

// deleteNetNS kills what still runs inside a network namespace and
// deletes it (its interfaces, and their veth peers, go with it). A
// namespace that is gone already is no error.
func deleteNetNS(name string) error {
	if pids, err := netns.Pids(name); err == nil {
		if err := killAll(pids); err != nil {
			return fmt.Errorf("network namespace %s: %w", name, err)
		}
	}
	return netns.Delete(name)
}

// ownedNetNS lists the network namespaces of the sandbox whose bridge
// namespace is base.
func ownedNetNS(base string) []string {
	var out []string
	for _, name := range netns.List(base) {
		if ownsNetNS(base, name) {
			out = append(out, name)
		}
	}
	return out
}

// ensureBridge creates the bridge namespace and its bridge unless they exist.
func ensureBridge(base string) error {
	if _, err := netns.IP("-n", base, "link", "show", vmBridge); err == nil {
		return nil
	}
	if err := deleteNetNS(base); err != nil {
		return err
	}
	br, err := netns.Create(base)
	if err != nil {
		return err
	}
	defer func() { _ = br.Close() }()
	return br.Bridge(vmBridge)
}

// vmWired reports whether the VM's namespace exists with its address on
// eth0 and the other end of its veth on the bridge of link (the sandbox's
// bridge namespace, or its network's router).
func vmWired(link string, vm AgentVM) bool {
	out, err := netns.IP("-n", vm.NetNS, "-o", "addr", "show", "dev", "eth0")
	if err != nil || !strings.Contains(out, " "+vm.CIDR()+" ") {
		return false
	}
	if vm.Gateway != "" {
		if out, err := netns.IP("-n", vm.NetNS, "route", "show", "default"); err != nil || !strings.Contains(out, "via "+vm.Gateway+" ") {
			return false
		}
	}
	out, err = netns.IP("-n", link, "-o", "link", "show", vm.Veth)
	return err == nil && strings.Contains(out, "master "+vmBridge)
}

// wireVM creates the VM's namespace, joined to the bridge of link by a
// veth pair, with the VM's address on its eth0 and, behind a router, its
// default route through it.
func wireVM(link string, vm AgentVM) error {
	if err := attachVM(link, vm); err != nil {
		return err
	}
	if vm.Gateway == "" {
		return nil
	}
	if _, err := netns.IP("-n", vm.NetNS, "route", "replace", "default", "via", vm.Gateway); err != nil {
		return fmt.Errorf("the default route of %s: %w", vm.Name, err)
	}
	return nil
}

func attachVM(base string, vm AgentVM) error {
	br, err := netns.Open(base)
	if err != nil {
		return err
	}
	defer func() { _ = br.Close() }()
	ns, err := netns.Create(vm.NetNS)
	if err != nil {
		return err
	}
	defer func() { _ = ns.Close() }()
	_, _ = netns.IP("-n", base, "link", "del", vm.Veth) // a leftover of an earlier namespace
	if err := br.Attach(vmBridge, vm.Veth, ns, "eth0", vm.CIDR()); err != nil {
		return fmt.Errorf("wiring the namespace of %s: %w", vm.Name, err)
	}
	return nil
}

// listenIn listens on address inside the named network namespace ("" is
// this process's own).
func listenIn(name, address string) (net.Listener, error) {
	if name == "" {
		return net.Listen("tcp", address)
	}
	ns, err := netns.Open(name)
	if err != nil {
		return nil, err
	}
	defer func() { _ = ns.Close() }() // the listener keeps the namespace
	return ns.Listen("tcp", address)
}
