package netns

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// IP runs ip(8) with args, from this process's namespace ("-n NAME" runs
// it in NAME's), and returns what it printed on its standard output; a
// failure carries what it printed on its standard error.
func IP(args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("ip", args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// ip runs ip(8) inside the namespace.
func (ns *NS) ip(args ...string) error {
	_, err := IP(append([]string{"-n", ns.Name}, args...)...)
	return err
}

// Veth links the namespace to peer with a veth pair, name on this side and
// peerName on the other, and sets both ends up.
func (ns *NS) Veth(name string, peer *NS, peerName string) error {
	if err := ns.ip("link", "add", name, "type", "veth", "peer", "name", peerName, "netns", peer.Name); err != nil {
		return err
	}
	return errors.Join(ns.ip("link", "set", name, "up"), peer.ip("link", "set", peerName, "up"))
}

// AddAddress gives an interface of the namespace an address, such as
// "10.0.0.1/24".
// IPv6 addresses skip duplicate address detection, to be usable at once.
func (ns *NS) AddAddress(dev, cidr string) error {
	args := []string{"addr", "add", cidr, "dev", dev}
	if strings.Contains(cidr, ":") {
		args = append(args, "nodad")
	}
	return ns.ip(args...)
}

// Bridge adds a bridge called name to the namespace and sets it up.
func (ns *NS) Bridge(name string) error {
	if err := ns.ip("link", "add", name, "type", "bridge"); err != nil {
		return err
	}
	return ns.ip("link", "set", name, "up")
}

// Attach plugs peer into the bridge of this namespace: a veth pair with
// port on the bridge and dev in peer, dev having the address cidr.
func (ns *NS) Attach(bridge, port string, peer *NS, dev, cidr string) error {
	if err := ns.Veth(port, peer, dev); err != nil {
		return err
	}
	if err := ns.ip("link", "set", port, "master", bridge); err != nil {
		return err
	}
	return peer.AddAddress(dev, cidr)
}
