package netns

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Dir is where iproute2 keeps the handles of named namespaces.
const Dir = "/run/netns"

// ErrNotRoot is why this process cannot create, enter or delete a
// network namespace.
var ErrNotRoot = errors.New("not root: network namespaces need root (run as root, e.g. with sudo)")

// packageOf names the Debian package of the programs Check looks for.
var packageOf = map[string]string{"ip": "iproute2", "nft": "nftables"}

// Check says why this process cannot play network namespaces, if it
// cannot: it must be root and find ip(8), and the other programs named
// (such as "nft"), on its PATH.
func Check(programs ...string) error {
	if os.Geteuid() != 0 {
		return ErrNotRoot
	}
	for _, prog := range append([]string{"ip"}, programs...) {
		if _, err := exec.LookPath(prog); err != nil {
			pkg := cmp.Or(packageOf[prog], prog)
			return fmt.Errorf("%s is missing: install %s (hack/ensure-packages.sh %s)", prog, pkg, pkg)
		}
	}
	return nil
}

// NS is a named network namespace, held open.
type NS struct {
	Name string
	fd   *os.File
}

// Create adds a network namespace, with its loopback up.
func Create(name string) (*NS, error) {
	if err := Check(); err != nil {
		return nil, fmt.Errorf("creating network namespace %s: %w", name, err)
	}
	if _, err := IP("netns", "add", name); err != nil {
		return nil, fmt.Errorf("creating network namespace %s: %w", name, err)
	}
	ns, err := Open(name)
	if err != nil {
		return nil, errors.Join(err, Delete(name))
	}
	if _, err := IP("-n", name, "link", "set", "lo", "up"); err != nil {
		return nil, errors.Join(err, ns.Delete())
	}
	return ns, nil
}

// Open holds the existing namespace called name.
func Open(name string) (*NS, error) {
	fd, err := os.Open(filepath.Join(Dir, name))
	if err != nil {
		return nil, fmt.Errorf("opening network namespace %s: %w", name, err)
	}
	return &NS{Name: name, fd: fd}, nil
}

// Fd is a file descriptor of the namespace, for netlink sockets
// (nftables.WithNetNSFd).
func (ns *NS) Fd() int { return int(ns.fd.Fd()) }

// Close lets go of the namespace, which stays.
func (ns *NS) Close() error { return ns.fd.Close() }

// Delete lets go of the namespace and removes it; its interfaces go with
// it.
func (ns *NS) Delete() error {
	_ = ns.Close()
	return Delete(ns.Name)
}

// Exists reports whether a namespace called name exists.
func Exists(name string) bool {
	_, err := os.Stat(filepath.Join(Dir, name))
	return err == nil
}

// Delete removes the namespace called name, if it exists. The processes
// still inside keep it alive, unnamed, until they end (see Pids).
func Delete(name string) error {
	if !Exists(name) {
		return nil
	}
	if err := Check(); err != nil {
		return fmt.Errorf("deleting network namespace %s: %w", name, err)
	}
	if _, err := IP("netns", "del", name); err != nil && Exists(name) {
		return fmt.Errorf("deleting network namespace %s: %w", name, err)
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

// Pids lists the processes inside the namespace called name, but for
// this one and init.
func Pids(name string) ([]int, error) {
	out, err := IP("netns", "pids", name)
	if err != nil {
		return nil, err
	}
	return parsePids(out, os.Getpid()), nil
}

// parsePids reads the output of "ip netns pids", leaving out self and
// init.
func parsePids(out string, self int) []int {
	var pids []int
	for _, f := range strings.Fields(out) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 1 && pid != self {
			pids = append(pids, pid)
		}
	}
	return pids
}

// ReapOrphans deletes the namespaces named "<prefix><pid>-…" whose
// process pid is gone: what test runs killed before their clean-up left.
func ReapOrphans(prefix string) {
	for _, name := range List(prefix) {
		if pid, ok := ownerPid(prefix, name); ok && errors.Is(unix.Kill(pid, 0), unix.ESRCH) {
			_ = Delete(name)
		}
	}
}

// ownerPid reads the pid of the process that named a namespace
// "<prefix><pid>-…".
func ownerPid(prefix, name string) (int, bool) {
	pidText, _, ok := strings.Cut(strings.TrimPrefix(name, prefix), "-")
	pid, err := strconv.Atoi(pidText)
	return pid, ok && err == nil && pid > 0
}
