package vmagent

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"antreaplus.io/antreaplus/pkg/policycompiler"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/vmagent/netnstest"
)

// lab is a server namespace linked to two client namespaces, each on its
// own /24 and /64:
//
//	client1 10.77.1.1 fd77:1::1 ---- 10.77.1.2 fd77:1::2 server
//	client2 10.77.2.1 fd77:2::1 ---- 10.77.2.2 fd77:2::2 server
type lab struct {
	server, client1, client2 *netnstest.NS
	echo                     *netnstest.Echo
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
	if os.Geteuid() != 0 {
		cannotRun(t, "needs root to create network namespaces and program nftables (make test runs as root in CI)")
	}
	for _, prog := range []string{"nft", "ip"} {
		if _, err := exec.LookPath(prog); err != nil {
			cannotRun(t, "%s is missing: make test installs it (hack/ensure-packages.sh nftables iproute2)", prog)
		}
	}
}

func newLab(t testing.TB) *lab {
	t.Helper()
	requireRoot(t)
	netnstest.ReapOrphans("apvt-")
	prefix := fmt.Sprintf("apvt-%d-", os.Getpid())
	l := &lab{echo: &netnstest.Echo{}}
	var err error
	for _, p := range []struct {
		ns   **netnstest.NS
		name string
	}{{&l.server, "s"}, {&l.client1, "c1"}, {&l.client2, "c2"}} {
		if *p.ns, err = netnstest.Create(prefix + p.name); err != nil {
			t.Fatal(err)
		}
		ns := *p.ns
		t.Cleanup(func() { _ = ns.Delete() })
	}
	t.Cleanup(l.echo.Close)
	for i, c := range []*netnstest.NS{l.client1, l.client2} {
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

func apply(t testing.TB, ns *netnstest.NS, view *wire.View) ApplyResult {
	t.Helper()
	res, err := (&NFTables{NetNSFd: ns.Fd()}).Apply(view)
	if err != nil {
		t.Fatalf("applying rules in %s: %v", ns.Name, err)
	}
	return res
}

// Builders of wire rules, in the order the compiler would emit them.

type ruleOpt func(*wire.Rule)

func rule(dir policycompiler.Direction, tier string, tierPriority int32, action policycompiler.Action, opts ...ruleOpt) wire.Rule {
	r := wire.Rule{Direction: dir, Action: action, Tier: tier, TierPriority: tierPriority, AnyPeer: true,
		Policy: wire.PolicyRef{Kind: string(policycompiler.KindClusterNetworkPolicy), Name: "test"}}
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
		r.Ports = append(r.Ports, wire.Port{Protocol: policycompiler.ProtocolTCP, Port: first, EndPort: last})
	}
}

func udp(port int32) ruleOpt {
	return func(r *wire.Rule) {
		r.Ports = append(r.Ports, wire.Port{Protocol: policycompiler.ProtocolUDP, Port: port, EndPort: port})
	}
}

func icmp(typ int32) ruleOpt {
	return func(r *wire.Rule) {
		r.Ports = append(r.Ports, wire.Port{Protocol: policycompiler.ProtocolICMP, ICMPType: typ, ICMPCode: policycompiler.AnyType})
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
	from     *netnstest.NS
	fromAddr string
	// egress are the rules in force on the client, if any.
	egress *wire.View
	proto  policycompiler.Protocol
	to     string
	port   int32
}

// expected decides a probe with the reference semantics: the client's
// egress rules, then the server's ingress rules.
func expected(p probe, server *wire.View) netnstest.Outcome {
	to := netip.MustParseAddr(p.to)
	from := netip.MustParseAddr(p.fromAddr)
	out := policycompiler.Packet{Direction: policycompiler.DirectionEgress, Peer: to, Protocol: p.proto, Port: p.port}
	in := policycompiler.Packet{Direction: policycompiler.DirectionIngress, Peer: from, Protocol: p.proto, Port: p.port}
	decision := policycompiler.Decision{Action: policycompiler.ActionAllow}
	if ep := endpointOf(p.egress); ep != nil {
		decision = policycompiler.Evaluate(ep.CompiledRules(), out)
	}
	if ep := endpointOf(server); decision.Action == policycompiler.ActionAllow && ep != nil {
		decision = policycompiler.Evaluate(ep.CompiledRules(), in)
	}
	switch decision.Action {
	case policycompiler.ActionDrop:
		return netnstest.Dropped
	case policycompiler.ActionReject:
		return netnstest.Refused
	}
	return netnstest.Connected
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
			var got netnstest.Outcome
			var err error
			if p.proto == policycompiler.ProtocolUDP {
				got, err = netnstest.ProbeUDP(p.from, addr, 700*time.Millisecond)
			} else {
				got, err = netnstest.ProbeTCP(p.from, addr, 700*time.Millisecond)
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
