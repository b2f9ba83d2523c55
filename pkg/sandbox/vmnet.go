package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// netnsDir is where iproute2 keeps the handles of named network namespaces.
const netnsDir = "/run/netns"

// vmBridge is the bridge, in the bridge namespace, that joins the VMs.
const vmBridge = "br0"

// VMAgentsSupported fails, saying what to do, unless this process may
// create network namespaces and run nftables: root, ip(8) and nft(8).
func VMAgentsSupported() error {
	if os.Geteuid() != 0 {
		return errors.New("--vm-agents plays each agented VM in a network namespace, which needs root: run it with sudo")
	}
	for _, tool := range []string{"ip", "nft"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("--vm-agents needs %s (iproute2, nftables): run hack/ensure-packages.sh or install them", tool)
		}
	}
	return nil
}

// ipCmd runs ip(8) with args and returns its output in the error.
func ipCmd(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

func netnsExists(name string) bool {
	_, err := os.Stat(filepath.Join(netnsDir, name))
	return err == nil
}

// createNetNS adds a network namespace with its loopback up.
func createNetNS(name string) error {
	if err := ipCmd("netns", "add", name); err != nil {
		return err
	}
	return ipCmd("-n", name, "link", "set", "lo", "up")
}

// deleteNetNS kills what still runs inside a network namespace and
// deletes it (its interfaces, and their veth peers, go with it). A
// namespace that is gone already is no error.
func deleteNetNS(name string) error {
	if !netnsExists(name) {
		return nil
	}
	if out, err := exec.Command("ip", "netns", "pids", name).Output(); err == nil {
		var pids []int
		for _, f := range strings.Fields(string(out)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 1 && pid != os.Getpid() {
				pids = append(pids, pid)
			}
		}
		if err := killAll(pids); err != nil {
			return fmt.Errorf("network namespace %s: %w", name, err)
		}
	}
	if err := ipCmd("netns", "del", name); err != nil && netnsExists(name) {
		return err
	}
	return nil
}

// ownedNetNS lists the network namespaces of the sandbox whose bridge
// namespace is base.
func ownedNetNS(base string) []string {
	entries, _ := os.ReadDir(netnsDir)
	var out []string
	for _, e := range entries {
		if ownsNetNS(base, e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// ensureBridge creates the bridge namespace and its bridge unless they exist.
func ensureBridge(base string) error {
	if netnsExists(base) && ipCmd("-n", base, "link", "show", vmBridge) == nil {
		return nil
	}
	if err := deleteNetNS(base); err != nil {
		return err
	}
	if err := createNetNS(base); err != nil {
		return err
	}
	return errors.Join(ipCmd("-n", base, "link", "add", vmBridge, "type", "bridge"), ipCmd("-n", base, "link", "set", vmBridge, "up"))
}

// vmWired reports whether the VM's namespace exists with its address on
// eth0 and the other end of its veth on the bridge.
func vmWired(base string, vm AgentVM) bool {
	out, err := exec.Command("ip", "-n", vm.NetNS, "-o", "addr", "show", "dev", "eth0").Output()
	if err != nil || !strings.Contains(string(out), " "+vm.CIDR()+" ") {
		return false
	}
	out, err = exec.Command("ip", "-n", base, "-o", "link", "show", vm.Veth).Output()
	return err == nil && strings.Contains(string(out), "master "+vmBridge)
}

// wireVM creates the VM's namespace, joined to the bridge by a veth pair,
// with the VM's address on its eth0.
func wireVM(base string, vm AgentVM) error {
	if err := createNetNS(vm.NetNS); err != nil {
		return err
	}
	_ = ipCmd("-n", base, "link", "del", vm.Veth) // a leftover of an earlier namespace
	steps := [][]string{
		{"-n", base, "link", "add", vm.Veth, "type", "veth", "peer", "name", "eth0", "netns", vm.NetNS},
		{"-n", base, "link", "set", vm.Veth, "master", vmBridge, "up"},
		{"-n", vm.NetNS, "addr", "add", vm.CIDR(), "dev", "eth0"},
		{"-n", vm.NetNS, "link", "set", "eth0", "up"},
	}
	for _, s := range steps {
		if err := ipCmd(s...); err != nil {
			return fmt.Errorf("wiring the namespace of %s: %w", vm.Name, err)
		}
	}
	return nil
}

// inNetNS runs f on an OS thread moved into the named network namespace:
// the sockets f creates live there for good, whatever thread uses them
// later. f must not start goroutines that create sockets.
func inNetNS(name string, f func() error) error {
	target, err := os.Open(filepath.Join(netnsDir, name))
	if err != nil {
		return fmt.Errorf("no network namespace %s: %w", name, err)
	}
	defer target.Close()
	runtime.LockOSThread()
	self, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer self.Close()
	if err := unix.Setns(int(target.Fd()), syscall.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("entering network namespace %s: %w", name, err)
	}
	ferr := f()
	if err := unix.Setns(int(self.Fd()), syscall.CLONE_NEWNET); err != nil {
		// The thread stays locked, so the runtime ends it with the goroutine.
		return errors.Join(ferr, fmt.Errorf("leaving network namespace %s: %w", name, err))
	}
	runtime.UnlockOSThread()
	return ferr
}

// listenIn listens on address inside the named network namespace ("" is
// this process's own).
func listenIn(netns, address string) (net.Listener, error) {
	if netns == "" {
		return net.Listen("tcp", address)
	}
	var l net.Listener
	err := inNetNS(netns, func() error {
		var err error
		l, err = net.Listen("tcp", address)
		return err
	})
	return l, err
}
