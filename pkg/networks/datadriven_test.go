package networks

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"antreaplus.io/antreaplus/test/datadriven"
)

// TestDataDriven runs the cases of testdata/*.txt; -rewrite regenerates
// their expected outputs:
//
//	go test ./pkg/networks/ -run TestDataDriven -rewrite
//
// Commands, on a topology set by the last "networks" before them:
//
//	networks        one network a line: NAME CIDR[,CIDR...] [flat=NET[:CIDR,...]]...
//	                output: the overlaps each network's view sees, or ok
//	decide NET DIR  DIR source|destination; one entity a line:
//	                NAME [net=NET] [private=IP[@NET],...] [public=IP,...]
//	                [egress=IP@VIA,...] [unclassified=IP,...]
//	                output: per entity its usable addresses or why none,
//	                and each rejected address
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, file string) {
		t.Helper()
		var topo *Topology
		datadriven.RunTest(t, file, func(t *testing.T, d *datadriven.TestData) []string {
			t.Helper()
			switch d.Cmd {
			case "networks":
				nets := make([]Network, 0, len(d.Input))
				for _, line := range d.Input {
					nets = append(nets, parseNetwork(t, line))
				}
				topo = NewTopology(nets)
				return renderOverlaps(topo, nets)
			case "decide":
				return decide(t, topo, d)
			}
			t.Fatalf("%s: unknown command %q", d.Pos, d.Command)
			return nil
		})
	})
}

func decide(t *testing.T, topo *Topology, d *datadriven.TestData) []string {
	t.Helper()
	if len(d.CmdArgs) != 2 {
		t.Fatalf("%s: want decide NET DIR", d.Pos)
	}
	point := d.CmdArgs[0]
	if point == "-" {
		point = ""
	}
	dir := Source
	if d.CmdArgs[1] == "destination" {
		dir = Destination
	}
	view := topo.View(point)
	var out []string
	for _, line := range d.Input {
		e := parseEntity(t, line)
		vd := view.Decide(&e, dir)
		if len(vd.Addresses) == 0 {
			out = append(out, e.Name+": none: "+vd.Reason())
		} else {
			var addrs []string
			for _, a := range vd.Addresses {
				s := a.String()
				for _, eg := range vd.Egress {
					if eg.IP == a {
						s += "(egress " + eg.Via + ")"
					}
				}
				addrs = append(addrs, s)
			}
			out = append(out, e.Name+": "+strings.Join(addrs, " "))
		}
		for _, r := range vd.Rejected {
			out = append(out, "  rejected "+r.IP.String()+": "+r.Message())
		}
	}
	return out
}

func renderOverlaps(topo *Topology, nets []Network) []string {
	var out []string
	for _, n := range nets {
		for _, o := range topo.View(n.Name).Ambiguous() {
			out = append(out, fmt.Sprintf("%s: ambiguous: %s (%s) overlaps %s (%s)", n.Name, o.A, o.APrefix, o.B, o.BPrefix))
		}
	}
	if len(out) == 0 {
		return []string{"ok"}
	}
	return out
}

func parseNetwork(t *testing.T, line string) Network {
	t.Helper()
	f := strings.Fields(line)
	if len(f) < 2 {
		t.Fatalf("network line %q: want NAME CIDRS [flat=...]", line)
	}
	n := Network{Name: f[0], Prefixes: testPrefixes(t, f[1])}
	for _, arg := range f[2:] {
		v, ok := strings.CutPrefix(arg, "flat=")
		if !ok {
			t.Fatalf("network line %q: unknown %q", line, arg)
		}
		name, cidrs, _ := strings.Cut(v, ":")
		fl := Flat{Network: name}
		if cidrs != "" {
			fl.Prefixes = testPrefixes(t, cidrs)
		}
		n.Flat = append(n.Flat, fl)
	}
	return n
}

func testPrefixes(t *testing.T, s string) []netip.Prefix {
	t.Helper()
	var out []netip.Prefix
	for _, c := range strings.Split(s, ",") {
		p, err := netip.ParsePrefix(c)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func parseEntity(t *testing.T, line string) Entity {
	t.Helper()
	f := strings.Fields(line)
	e := Entity{Name: f[0]}
	var unclassified []netip.Addr
	for _, arg := range f[1:] {
		key, val, _ := strings.Cut(arg, "=")
		for _, item := range strings.Split(val, ",") {
			ip, extra, _ := strings.Cut(item, "@")
			var addr netip.Addr
			if key != "net" {
				addr = netip.MustParseAddr(ip)
			}
			switch key {
			case "net":
				e.Network = val
			case "private":
				network := e.Network
				if extra != "" {
					network = extra
				}
				e.Addresses = append(e.Addresses, Address{IP: addr, Kind: Private, Network: network})
			case "public":
				e.Addresses = append(e.Addresses, Address{IP: addr, Kind: Public})
			case "egress":
				e.Addresses = append(e.Addresses, Address{IP: addr, Kind: Egress, Via: extra})
			case "unclassified":
				unclassified = append(unclassified, addr)
			default:
				t.Fatalf("entity line %q: unknown %q", line, key)
			}
		}
	}
	e.Addresses = append(e.Addresses, Unclassified(unclassified)...)
	return e
}
