package dnsforward

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/miekg/dns"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// testServer is a DNS server on loopback.
type testServer struct{ addr string }

// serveDNS starts a test server on network (udp or tcp) that answers A
// questions with ip, NXDOMAIN for names whose first label is "missing"
// and 100 addresses for names whose first label is "many".
func serveDNS(t *testing.T, network, ip string) *testServer {
	t.Helper()
	ts := &testServer{}
	handler := dns.HandlerFunc(func(w dns.ResponseWriter, req *dns.Msg) {
		resp := new(dns.Msg)
		resp.SetReply(req)
		q := req.Question[0]
		switch {
		case strings.HasPrefix(q.Name, "missing."):
			resp.Rcode = dns.RcodeNameError
		case strings.HasPrefix(q.Name, "many."):
			for i := range 100 {
				resp.Answer = append(resp.Answer, &dns.A{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 5},
					A: net.IPv4(10, 0, byte(i/250), byte(i%250+1))})
			}
		default:
			resp.Answer = append(resp.Answer, &dns.A{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 5},
				A: net.ParseIP(ip)})
		}
		_ = w.WriteMsg(resp)
	})
	srv := &dns.Server{Handler: handler}
	switch network {
	case "udp":
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv.PacketConn, ts.addr = pc, pc.LocalAddr().String()
	default:
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv.Listener, ts.addr = l, l.Addr().String()
	}
	go func() { _ = srv.ActivateAndServe() }()
	t.Cleanup(func() { _ = srv.Shutdown() })
	return ts
}

// deadAddr is a loopback address where nothing listens (TCP or UDP).
func deadAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// silentAddr is a UDP address that takes queries and never answers.
func silentAddr(t *testing.T) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pc.Close() })
	return pc.LocalAddr().String()
}

func startForwarder(t *testing.T, routes Routes) *Forwarder {
	t.Helper()
	f, err := Listen(Options{Listen: "127.0.0.1:0", Timeout: 300 * time.Millisecond, Log: testr.New(t)}, routes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// ask sends one A question to the forwarder over network.
func ask(t *testing.T, f *Forwarder, network, name string) *dns.Msg {
	t.Helper()
	q := new(dns.Msg)
	q.SetQuestion(dns.Fqdn(name), dns.TypeA)
	resp, _, err := (&dns.Client{Net: network, Timeout: 5 * time.Second}).Exchange(q, f.Addr().String())
	if err != nil {
		t.Fatalf("%s over %s: %v", name, network, err)
	}
	return resp
}

func answerOf(resp *dns.Msg) string {
	if resp.Rcode != dns.RcodeSuccess || len(resp.Answer) == 0 {
		return dns.RcodeToString[resp.Rcode]
	}
	return resp.Answer[0].(*dns.A).A.String()
}

func TestForwarderRoutesZonesToTheMemberOverTCP(t *testing.T) {
	member := serveDNS(t, "tcp", "10.201.0.10") // TCP only: a UDP exchange would fail
	upstream := serveDNS(t, "udp", "192.0.2.1")
	upstreamTCP := serveDNS(t, "tcp", "192.0.2.2")
	f := startForwarder(t, Routes{Member: member.addr, Upstreams: []string{upstream.addr}})
	for _, network := range []string{"udp", "tcp"} {
		for _, tc := range []struct{ name, want string }{
			{"web.shop.svc.clusterset.local", "10.201.0.10"},
			{"WEB.shop.svc.ClusterSet.local", "10.201.0.10"},
			{"web.shop.sandbox.svc.cluster.local", "10.201.0.10"},
			{"example.com", "192.0.2.1"},
			{"missing.", "NXDOMAIN"},
		} {
			if network == "tcp" && tc.want == "192.0.2.1" {
				tc.want = "SERVFAIL" // the upstream serves UDP only: a TCP client's query goes over TCP
			}
			if network == "tcp" && tc.want == "NXDOMAIN" {
				tc.want = "SERVFAIL"
			}
			resp := ask(t, f, network, tc.name)
			if got := answerOf(resp); got != tc.want {
				t.Errorf("%s over %s: %s, want %s", tc.name, network, got, tc.want)
			}
			if !resp.RecursionAvailable {
				t.Errorf("%s over %s: no RA flag for a query with RD", tc.name, network)
			}
		}
	}
	f.SetRoutes(Routes{Member: member.addr, Upstreams: []string{upstreamTCP.addr}})
	if got := answerOf(ask(t, f, "tcp", "example.com")); got != "192.0.2.2" {
		t.Errorf("example.com over TCP after SetRoutes: %s, want 192.0.2.2", got)
	}
	m := f.opts.Metrics
	if got := testutil.ToFloat64(m.Queries.WithLabelValues(RouteMember, "NOERROR")); got != 6 {
		t.Errorf("member NOERROR queries = %v, want 6", got)
	}
	if got := testutil.ToFloat64(m.Queries.WithLabelValues(RouteUpstream, "SERVFAIL")); got != 2 {
		t.Errorf("upstream SERVFAIL queries = %v, want 2", got)
	}
}

func TestForwarderAsksTheNextUpstream(t *testing.T) {
	second := serveDNS(t, "udp", "192.0.2.2")
	f := startForwarder(t, Routes{Upstreams: []string{deadAddr(t), silentAddr(t), second.addr}})
	start := time.Now()
	if got := answerOf(ask(t, f, "udp", "example.com")); got != "192.0.2.2" {
		t.Errorf("example.com: %s, want 192.0.2.2 from the third upstream", got)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the answer took %s: more than the silent upstream's timeout", took)
	}
	if got := testutil.ToFloat64(f.opts.Metrics.ExchangeErrors.WithLabelValues(RouteUpstream)); got != 2 {
		t.Errorf("upstream exchange errors = %v, want 2", got)
	}
}

func TestForwarderAnswersServfailWhenNoServerAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		routes Routes
		query  string
	}{
		{"member refuses", Routes{Member: deadAddr(t)}, "web.shop.svc.clusterset.local"},
		{"no member known", Routes{Upstreams: []string{serveDNS(t, "udp", "192.0.2.1").addr}}, "web.shop.svc.clusterset.local"},
		{"upstream silent", Routes{Upstreams: []string{silentAddr(t)}}, "example.com"},
		{"no upstream", Routes{Member: serveDNS(t, "tcp", "10.0.0.1").addr}, "example.com"},
	} {
		f := startForwarder(t, tc.routes)
		start := time.Now()
		resp := ask(t, f, "udp", tc.query)
		if resp.Rcode != dns.RcodeServerFailure || !resp.RecursionAvailable {
			t.Errorf("%s: rcode %s, RA %v; want SERVFAIL with RA", tc.name, dns.RcodeToString[resp.Rcode], resp.RecursionAvailable)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s: SERVFAIL took %s", tc.name, took)
		}
	}
}

func TestForwarderTruncatesForUDPClients(t *testing.T) {
	member := serveDNS(t, "tcp", "10.0.0.1")
	f := startForwarder(t, Routes{Member: member.addr})
	name := "many.web.shop.svc.clusterset.local"
	udp := ask(t, f, "udp", name)
	if !udp.Truncated || len(udp.Answer) >= 100 {
		t.Errorf("over UDP: %d answers, truncated %v; want fewer than 100 and TC set", len(udp.Answer), udp.Truncated)
	}
	if tcp := ask(t, f, "tcp", name); tcp.Truncated || len(tcp.Answer) != 100 {
		t.Errorf("over TCP: %d answers, truncated %v; want all 100", len(tcp.Answer), tcp.Truncated)
	}
	// A client offering a large EDNS buffer gets every answer over UDP.
	q := new(dns.Msg)
	q.SetQuestion(dns.Fqdn(name), dns.TypeA)
	q.SetEdns0(4096, false)
	resp, _, err := (&dns.Client{Net: "udp", UDPSize: 4096}).Exchange(q, f.Addr().String())
	if err != nil || resp.Truncated || len(resp.Answer) != 100 {
		t.Errorf("over UDP with EDNS 4096: %v, %d answers", err, len(resp.Answer))
	}
}

func TestListenBindsUDPAndTCPOnOnePort(t *testing.T) {
	f := startForwarder(t, Routes{})
	for _, network := range []string{"udp", "tcp"} {
		if got := answerOf(ask(t, f, network, "example.com")); got != "SERVFAIL" {
			t.Errorf("over %s on %s: %s, want SERVFAIL (no upstream)", network, f.Addr(), got)
		}
	}
	if _, err := Listen(Options{Listen: f.Addr().String()}, Routes{}); err == nil {
		t.Errorf("a second forwarder on %s: no error", f.Addr())
	}
	if _, err := Listen(Options{Listen: "127.0.0.1:0", Zones: []string{"a..b"}}, Routes{}); err == nil {
		t.Error("a bad zone: no error")
	}
}

func ExampleListen() {
	f, err := Listen(Options{Listen: "127.0.0.1:0"}, Routes{
		Member:    "127.0.53.1:16743",        // the member's DNS server, over TCP
		Upstreams: []string{"192.0.2.53:53"}, // the VM's previous resolvers
	})
	if err != nil {
		panic(err)
	}
	defer func() { _ = f.Close() }()
	fmt.Println(f.Routes().Member)
	// Output: 127.0.53.1:16743
}
