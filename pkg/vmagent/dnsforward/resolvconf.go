package dnsforward

import (
	"bytes"
	"net/netip"
	"strings"
)

// Marker begins the first line of every resolver file the agent writes.
const Marker = "# Managed by the antreaplus vm-agent"

// fallbacks is how many of the original nameservers follow the forwarder's
// in a managed file: glibc reads three nameservers (MAXNS).
const fallbacks = 2

// Nameservers returns the addresses of a resolv.conf's nameserver lines, in
// order; lines whose address does not parse are left out, as the resolver
// does.
func Nameservers(content []byte) []netip.Addr {
	var out []netip.Addr
	for _, line := range lines(content) {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "nameserver" {
			continue
		}
		if a, err := netip.ParseAddr(f[1]); err == nil {
			out = append(out, a)
		}
	}
	return out
}

// Upstreams returns where the forwarder sends the names outside its zones:
// the nameservers of the original file, on port 53, but the forwarder's
// own address; 127.0.0.1:53 when the file names none, the resolver's
// default (resolv.conf(5)).
func Upstreams(original []byte, forwarder netip.Addr) []string {
	var out []string
	for _, a := range Nameservers(original) {
		if a.Unmap() != forwarder.Unmap() {
			out = append(out, netip.AddrPortFrom(a, 53).String())
		}
	}
	if len(Nameservers(original)) == 0 {
		out = []string{"127.0.0.1:53"}
	}
	return out
}

// Managed reports whether a resolver file was written by Rewrite.
func Managed(content []byte) bool {
	for _, line := range lines(content) {
		if strings.TrimSpace(line) != "" {
			return strings.HasPrefix(line, Marker)
		}
	}
	return false
}

// Rewrite returns the original resolver file pointed at the forwarder: a
// Marker line, the forwarder's nameserver line, then up to two of the
// original nameservers, which the resolver asks only when the forwarder
// does not answer (the agent is down), then every other line of the
// original (search, domain, options, comments) as it was, but the "rotate"
// option, which would send names to the fallbacks in turn.
func Rewrite(original []byte, forwarder netip.Addr, zones []string) []byte {
	var b bytes.Buffer
	b.WriteString(Marker + ": it sends " + strings.Join(zones, " ") +
		" to its member's DNS server, other names to the nameservers after its own; 'vm-agent --uninstall' restores the previous file.\n")
	b.WriteString("nameserver " + forwarder.String() + "\n")
	n := 0
	for _, a := range Nameservers(original) {
		if n < fallbacks && a.Unmap() != forwarder.Unmap() {
			b.WriteString("nameserver " + a.String() + "\n")
			n++
		}
	}
	for _, line := range lines(original) {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "nameserver":
		case len(f) > 0 && f[0] == "options":
			if kept := withoutRotate(f[1:]); len(kept) > 0 {
				b.WriteString("options " + strings.Join(kept, " ") + "\n")
			}
		default:
			b.WriteString(line + "\n")
		}
	}
	return b.Bytes()
}

func withoutRotate(opts []string) []string {
	out := make([]string, 0, len(opts))
	for _, o := range opts {
		if o != "rotate" {
			out = append(out, o)
		}
	}
	return out
}

// Unmanage returns what a managed file stands for when its original is
// lost: the file without the agent's lines, its Marker line and the
// forwarder's nameserver line (the first), so that the fallback
// nameservers become the file's.
func Unmanage(content []byte) []byte {
	var b bytes.Buffer
	forwarderSeen := false
	for _, line := range lines(content) {
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, Marker):
		case !forwarderSeen && len(f) > 0 && f[0] == "nameserver":
			forwarderSeen = true
		default:
			b.WriteString(line + "\n")
		}
	}
	return b.Bytes()
}

// lines splits a file into lines without their ends; a final line end
// makes no empty last line.
func lines(content []byte) []string {
	s := strings.TrimSuffix(strings.ReplaceAll(string(content), "\r\n", "\n"), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
