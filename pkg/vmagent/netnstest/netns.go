package netnstest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Dir is where iproute2 keeps the handles of named namespaces.
const Dir = "/run/netns"

// NS is a named network namespace.
type NS struct {
	Name string
	fd   *os.File
}

// Create adds a network namespace, with its loopback up.
func Create(name string) (*NS, error) {
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("creating network namespace %s: %w: %s", name, err, strings.TrimSpace(string(out)))
	}
	ns := &NS{Name: name}
	fd, err := os.Open(filepath.Join(Dir, name))
	if err != nil {
		_ = ns.Delete()
		return nil, fmt.Errorf("opening network namespace %s: %w", name, err)
	}
	ns.fd = fd
	if err := ns.Run("ip", "link", "set", "lo", "up"); err != nil {
		_ = ns.Delete()
		return nil, err
	}
	return ns, nil
}

// Fd is a file descriptor of the namespace, for netlink sockets
// (nftables.WithNetNSFd).
func (ns *NS) Fd() int { return int(ns.fd.Fd()) }

// Delete removes the namespace; its interfaces go with it.
func (ns *NS) Delete() error {
	if ns.fd != nil {
		_ = ns.fd.Close()
	}
	return Delete(ns.Name)
}

// Delete removes the namespace called name, if it exists.
func Delete(name string) error {
	if _, err := os.Stat(filepath.Join(Dir, name)); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if out, err := exec.Command("ip", "netns", "del", name).CombinedOutput(); err != nil {
		return fmt.Errorf("deleting network namespace %s: %w: %s", name, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// List returns the names of every named namespace starting with prefix.
func List(prefix string) []string {
	entries, _ := os.ReadDir(Dir)
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// Veth links the namespace to peer with a veth pair, name on this side and
// peerName on the other, and sets both ends up.
func (ns *NS) Veth(name string, peer *NS, peerName string) error {
	if err := ns.Run("ip", "link", "add", name, "type", "veth", "peer", "name", peerName, "netns", peer.Name); err != nil {
		return err
	}
	return errors.Join(ns.Run("ip", "link", "set", name, "up"), peer.Run("ip", "link", "set", peerName, "up"))
}

// AddAddress gives an interface of the namespace an address, such as
// "10.0.0.1/24".
// IPv6 addresses skip duplicate address detection, to be usable at once.
func (ns *NS) AddAddress(dev, cidr string) error {
	args := []string{"addr", "add", cidr, "dev", dev}
	if strings.Contains(cidr, ":") {
		args = append(args, "nodad")
	}
	return ns.Run("ip", args...)
}

// ReapOrphans deletes the namespaces named "<prefix><pid>-…" whose
// process pid is gone: what test runs killed before their clean-up left.
func ReapOrphans(prefix string) {
	for _, name := range List(prefix) {
		pidText, _, ok := strings.Cut(strings.TrimPrefix(name, prefix), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 {
			continue
		}
		if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
			_ = Delete(name)
		}
	}
}

// Command returns a command that runs inside the namespace.
func (ns *NS) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", ns.Name, name}, args...)...)
}

// Run runs a command inside the namespace and returns its output in the
// error when it fails.
func (ns *NS) Run(name string, args ...string) error {
	_, err := ns.Output(name, args...)
	return err
}

// Output runs a command inside the namespace and returns what it printed.
func (ns *NS) Output(name string, args ...string) (string, error) {
	out, err := ns.Command(name, args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s in %s: %w: %s", name, strings.Join(args, " "), ns.Name, err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// Do runs f on an OS thread that is inside the namespace: sockets f
// creates belong to the namespace for their whole life. f must not start
// goroutines that create sockets.
func (ns *NS) Do(f func() error) error {
	runtime.LockOSThread()
	self, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer self.Close()
	if err := unix.Setns(ns.Fd(), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("entering network namespace %s: %w", ns.Name, err)
	}
	ferr := f()
	if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
		// The thread stays locked, so the runtime ends it with the goroutine.
		return errors.Join(ferr, fmt.Errorf("leaving network namespace %s: %w", ns.Name, err))
	}
	runtime.UnlockOSThread()
	return ferr
}

// Dial connects from inside the namespace.
func (ns *NS) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	var conn net.Conn
	err := ns.Do(func() error {
		var err error
		conn, err = (&net.Dialer{}).DialContext(ctx, network, address)
		return err
	})
	return conn, err
}

// Listen listens inside the namespace.
func (ns *NS) Listen(network, address string) (net.Listener, error) {
	var l net.Listener
	err := ns.Do(func() error {
		var err error
		l, err = net.Listen(network, address)
		return err
	})
	return l, err
}

// ListenPacket listens for datagrams inside the namespace.
func (ns *NS) ListenPacket(network, address string) (net.PacketConn, error) {
	var pc net.PacketConn
	err := ns.Do(func() error {
		var err error
		pc, err = net.ListenPacket(network, address)
		return err
	})
	return pc, err
}
