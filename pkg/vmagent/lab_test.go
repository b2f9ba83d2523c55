package vmagent

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"antreaplus.io/antreaplus/internal/netns"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// lab is a server namespace linked to two client namespaces, each on its
// own /24 and /64:
//
//	client1 10.77.1.1 fd77:1::1 ---- 10.77.1.2 fd77:1::2 server
//	client2 10.77.2.1 fd77:2::1 ---- 10.77.2.2 fd77:2::2 server
type lab struct {
	server, client1, client2 *netns.NS
	echo                     *netns.Echo
}

// cannotRun ends a test that this machine cannot run: under make test
// (ANTREAPLUS_REQUIRE_CLUSTERS=1, which requires every test to run) it
// fails with the reason, so the nftables path is never green unrun;
// elsewhere (make test-unit, a developer's go test) it is skipped.
func cannotRun(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("ANTREAPLUS_REQUIRE_CLUSTERS") == "1" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

func requireRoot(t testing.TB) {
	t.Helper()
	if err := netns.Check("nft"); err != nil {
		cannotRun(t, "cannot play VMs in network namespaces (make test runs as root and installs ip and nft): %v", err)
	}
}

func newLab(t testing.TB) *lab {
	t.Helper()
	requireRoot(t)
	netns.ReapOrphans("apvt-")
	prefix := fmt.Sprintf("apvt-%d-", os.Getpid())
	l := &lab{echo: &netns.Echo{}}
	var err error
	for _, p := range []struct {
		ns   **netns.NS
		name string
	}{{&l.server, "s"}, {&l.client1, "c1"}, {&l.client2, "c2"}} {
		if *p.ns, err = netns.Create(prefix + p.name); err != nil {
			t.Fatal(err)
		}
		ns := *p.ns
		t.Cleanup(func() { _ = ns.Delete() })
	}
	t.Cleanup(l.echo.Close)
	for i, c := range []*netns.NS{l.client1, l.client2} {
		n := i + 1
		dev := "to-c" + strconv.Itoa(n)
		steps := []func() error{
			func() error { return l.server.Veth(dev, c, "eth0") },
			func() error { return l.server.AddAddress(dev, fmt.Sprintf("10.77.%d.2/24", n)) },
			func() error { return l.server.AddAddress(dev, fmt.Sprintf("fd77:%d::2/64", n)) },
			func() error { return c.AddAddress("eth0", fmt.Sprintf("10.77.%d.1/24", n)) },
			func() error { return c.AddAddress("eth0", fmt.Sprintf("fd77:%d::1/64", n)) },
		}
		for _, step := range steps {
			if err := step(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return l
}

func (l *lab) serveTCP(t testing.TB, ports ...int) {
	t.Helper()
	for _, p := range ports {
		if err := l.echo.TCP(l.server, "[::]:"+strconv.Itoa(p)); err != nil {
			t.Fatal(err)
		}
	}
}

func (l *lab) serveUDP(t testing.TB, ports ...int) {
	t.Helper()
	for _, p := range ports {
		if err := l.echo.UDP(l.server, "[::]:"+strconv.Itoa(p)); err != nil {
			t.Fatal(err)
		}
	}
}

func apply(t testing.TB, ns *netns.NS, view *wire.View) ApplyResult {
	t.Helper()
	res, err := (&NFTables{NetNSFd: ns.Fd()}).Apply(view)
	if err != nil {
		t.Fatalf("applying rules in %s: %v", ns.Name, err)
	}
	return res
}

// Builders of wire rules, in the order the compiler would emit them.

type ruleOpt func(*wire.Rule)

func rule(dir policyrules.Direction, tier string, tierPriority int32, action policyrules.Action, opts ...ruleOpt) wire.Rule {
	r := wire.Rule{Direction: dir, Action: action, Tier: tier, TierPriority: tierPriority, AnyPeer: true,
		Policy: wire.PolicyRef{Kind: string(policyrules.KindClusterNetworkPolicy), Name: "test"}}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func peers(cidrs ...string) ruleOpt {
	return func(r *wire.Rule) {
		r.AnyPeer = false
		for _, c := range cidrs {
			r.Peers = append(r.Peers, netip.MustParsePrefix(c))
		}
	}
}

func tcp(first, last int32) ruleOpt {
	return func(r *wire.Rule) {
		r.Ports = append(r.Ports, wire.Port{Protocol: policyrules.ProtocolTCP, Port: first, EndPort: last})
	}
}

func udp(port int32) ruleOpt {
	return func(r *wire.Rule) {
		r.Ports = append(r.Ports, wire.Port{Protocol: policyrules.ProtocolUDP, Port: port, EndPort: port})
	}
}

func icmp(typ int32) ruleOpt {
	return func(r *wire.Rule) {
		r.Ports = append(r.Ports, wire.Port{Protocol: policyrules.ProtocolICMP, ICMPType: typ, ICMPCode: policyrules.AnyType})
	}
}

// viewOf makes a View of one endpoint, numbering rule indexes in order.
func viewOf(name string, addresses []string, rules ...wire.Rule) *wire.View {
	ep := &wire.Endpoint{Name: name, Rules: map[wire.RuleID]wire.Rule{}}
	for _, a := range addresses {
		ep.Addresses = append(ep.Addresses, netip.MustParseAddr(a))
	}
	for i, r := range rules {
		r.RuleIndex = int32(i)
		r.Name = "rule" + strconv.Itoa(i)
		id := r.ID()
		ep.Order = append(ep.Order, id)
		ep.Rules[id] = r
	}
	return &wire.View{Epoch: "test", Generation: 1, Endpoints: map[string]*wire.Endpoint{name: ep}}
}

type probe struct {
	from     *netns.NS
	fromAddr string
	// egress are the rules in force on the client, if any.
	egress *wire.View
	proto  policyrules.Protocol
	to     string
	port   int32
}

// expected decides a probe with the reference semantics: the client's
// egress rules, then the server's ingress rules.
func expected(p probe, server *wire.View) netns.Outcome {
	to := netip.MustParseAddr(p.to)
	from := netip.MustParseAddr(p.fromAddr)
	out := policyrules.Packet{Direction: policyrules.DirectionEgress, Peer: to, Protocol: p.proto, Port: p.port}
	in := policyrules.Packet{Direction: policyrules.DirectionIngress, Peer: from, Protocol: p.proto, Port: p.port}
	decision := policyrules.Decision{Action: policyrules.ActionAllow}
	if ep := endpointOf(p.egress); ep != nil {
		decision = policyrules.Evaluate(ep.CompiledRules(), out)
	}
	if ep := endpointOf(server); decision.Action == policyrules.ActionAllow && ep != nil {
		decision = policyrules.Evaluate(ep.CompiledRules(), in)
	}
	switch decision.Action {
	case policyrules.ActionDrop:
		return netns.Dropped
	case policyrules.ActionReject:
		return netns.Refused
	}
	return netns.Connected
}

func endpointOf(v *wire.View) *wire.Endpoint {
	if v == nil {
		return nil
	}
	for _, ep := range v.Endpoints {
		return ep
	}
	return nil
}

// run probes in parallel and reports every probe whose outcome differs
// from the reference semantics.
func runProbes(t *testing.T, probes []probe, server *wire.View) {
	t.Helper()
	var wg sync.WaitGroup
	results := make([]string, len(probes))
	for i, p := range probes {
		wg.Go(func() {
			addr := net.JoinHostPort(p.to, strconv.Itoa(int(p.port)))
			var got netns.Outcome
			var err error
			if p.proto == policyrules.ProtocolUDP {
				got, err = netns.ProbeUDP(t.Context(), p.from, addr, 700*time.Millisecond)
			} else {
				got, err = netns.ProbeTCP(t.Context(), p.from, addr, 700*time.Millisecond)
			}
			want := expected(p, server)
			if err != nil || got != want {
				results[i] = fmt.Sprintf("%s %s -> %s: got %q (%v), want %q", p.proto, p.fromAddr, addr, got, err, want)
			}
		})
	}
	wg.Wait()
	for _, r := range results {
		if r != "" {
			t.Error(r)
		}
	}
}
