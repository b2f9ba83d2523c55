package vmagent

import (
	"strings"
	"testing"
	"time"

	"antreaplus.io/antreaplus/internal/netns"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

const (
	in  = policyrules.DirectionIngress
	out = policyrules.DirectionEgress

	allow  = policyrules.ActionAllow
	drop   = policyrules.ActionDrop
	reject = policyrules.ActionReject
	pass   = policyrules.ActionPass
)

var serverAddresses = []string{"10.77.1.2", "10.77.2.2", "fd77:1::2", "fd77:2::2"}

// serverRules exercise tiers, Pass, baseline, Reject, address sets of both
// families and port ranges, in the order the compiler emits them.
func serverRules() *wire.View {
	const secops, app, base, late = 100, 250, 253, 254
	return viewOf("ns/server", serverAddresses,
		rule(in, "securityops", secops, drop, peers("10.77.2.1/32"), tcp(8001, 8001)),
		rule(in, "securityops", secops, pass, peers("10.77.1.1/32", "fd77:1::1/128"), tcp(8002, 8002), tcp(8006, 8006)),
		rule(in, "securityops", secops, reject, tcp(8003, 8003)),
		rule(in, "securityops", secops, reject, peers("10.77.2.0/24"), udp(9003)),
		rule(in, "application", app, allow, peers("10.77.1.1/32"), tcp(8001, 8002)),
		rule(in, "application", app, drop, tcp(8002, 8002)),
		rule(in, "application", app, drop, peers("10.77.1.0/24", "10.77.2.0/24", "fd77:2::/64"), tcp(8004, 8004), udp(9004)),
		rule(in, "application", app, drop, tcp(8005, 8005)),
		rule(in, "application", app, allow, peers("fd77:1::1/128"), tcp(8007, 8007)),
		rule(in, "application", app, drop, peers("fd77::/16"), tcp(8007, 8007)),
		rule(in, "application", app, allow, icmp(8)),
		rule(in, "baseline", base, drop, peers("10.77.1.1/32"), tcp(8002, 8002)),
		rule(in, "baseline", base, allow, tcp(8005, 8005)),
		rule(in, "baseline", base, reject, tcp(8006, 8006)),
		rule(in, "late", late, drop, tcp(8006, 8008)),
	)
}

func clientRules() *wire.View {
	return viewOf("ns/client1", []string{"10.77.1.1", "fd77:1::1"},
		rule(out, "application", 250, reject, peers("10.77.1.2/32"), tcp(8101, 8101)),
		rule(out, "application", 250, drop, udp(9102)),
	)
}

func TestNFTablesEnforcesReferenceSemantics(t *testing.T) {
	l := newLab(t)
	l.serveTCP(t, 8001, 8002, 8003, 8004, 8005, 8006, 8007, 8008, 8101)
	l.serveUDP(t, 9003, 9004, 9102)
	server, client := serverRules(), clientRules()
	res := apply(t, l.server, server)
	apply(t, l.client1, client)
	if res.Rules == 0 || len(res.Skipped) > 0 {
		t.Fatalf("apply result %+v", res)
	}
	var probes []probe
	for _, from := range []struct {
		ns               *netns.NS
		egress           *wire.View
		v4, v6, to4, to6 string
	}{
		{l.client1, client, "10.77.1.1", "fd77:1::1", "10.77.1.2", "fd77:1::2"},
		{l.client2, nil, "10.77.2.1", "fd77:2::1", "10.77.2.2", "fd77:2::2"},
	} {
		for _, port := range []int32{8001, 8002, 8003, 8004, 8005, 8006, 8007, 8008, 8101} {
			probes = append(probes,
				probe{from: from.ns, egress: from.egress, fromAddr: from.v4, proto: policyrules.ProtocolTCP, to: from.to4, port: port},
				probe{from: from.ns, egress: from.egress, fromAddr: from.v6, proto: policyrules.ProtocolTCP, to: from.to6, port: port})
		}
		for _, port := range []int32{9003, 9004, 9102} {
			probes = append(probes, probe{from: from.ns, egress: from.egress, fromAddr: from.v4, proto: policyrules.ProtocolUDP, to: from.to4, port: port})
		}
	}
	runProbes(t, probes, server)
	if t.Failed() {
		out, _ := l.server.Output("nft", "list", "ruleset")
		t.Logf("server ruleset:\n%s", out)
	}
}

func TestNFTablesUpdateKeepsEstablishedConnections(t *testing.T) {
	l := newLab(t)
	l.serveTCP(t, 8001)
	apply(t, l.server, viewOf("ns/server", serverAddresses, rule(in, "application", 250, allow, tcp(8001, 8001))))
	conn, err := l.client1.Dial(t.Context(), "tcp", "10.77.1.2:8001")
	if err != nil {
		t.Fatalf("allowed connection: %v", err)
	}
	defer func() { _ = conn.Close() }()
	if err := netns.Exchange(conn, "before", time.Second); err != nil {
		t.Fatal(err)
	}
	// The update denies new connections to the port.
	apply(t, l.server, viewOf("ns/server", serverAddresses, rule(in, "application", 250, drop, tcp(8001, 8001))))
	if got, err := netns.ProbeTCP(t.Context(), l.client1, "10.77.1.2:8001", 500*time.Millisecond); err != nil || got != netns.Dropped {
		t.Fatalf("new connection after the update: %q, %v; want dropped", got, err)
	}
	if err := netns.Exchange(conn, "after", time.Second); err != nil {
		t.Fatalf("established connection after the update: %v", err)
	}
	if err := (&NFTables{NetNSFd: l.server.Fd()}).Remove(); err != nil {
		t.Fatal(err)
	}
	if got, err := netns.ProbeTCP(t.Context(), l.client1, "10.77.1.2:8001", time.Second); err != nil || got != netns.Connected {
		t.Fatalf("after removing the table: %q, %v; want connected", got, err)
	}
}

func TestNFTablesRendersReadableRuleset(t *testing.T) {
	l := newLab(t)
	apply(t, l.server, serverRules())
	listing, err := l.server.Output("nft", "list", "table", "inet", DefaultTable)
	if err != nil {
		t.Fatalf("nft list table: %v", err)
	}
	for _, want := range []string{
		"ct state established,related", "goto ingress-0", "jump ingress-0-baseline",
		"reject with tcp reset", "tcp dport 8001", "8001-8002",
		`comment "AntreaClusterNetworkPolicy:/test/rule0 (Ingress 0 Drop)"`,
		"10.77.1.0-10.77.2.255", "icmp type echo-request",
	} {
		if !strings.Contains(listing, want) {
			t.Errorf("ruleset lacks %q:\n%s", want, listing)
		}
	}
	// An empty view leaves only the base chains.
	apply(t, l.server, &wire.View{})
	listing, _ = l.server.Output("nft", "list", "table", "inet", DefaultTable)
	if strings.Contains(listing, "ingress-0") {
		t.Errorf("rules left after an empty view:\n%s", listing)
	}
}
