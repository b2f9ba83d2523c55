package sandbox

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/miekg/dns"
)

// TestDNSReadyNeedsTheDNSPort: CoreDNS answers /ready before it binds its
// DNS port, so a DNS server is ready only when it answers a question too.
func TestDNSReadyNeedsTheDNSPort(t *testing.T) {
	var healthy atomic.Bool
	healthy.Store(true)
	readyL, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if !healthy.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})}
	go func() { _ = srv.Serve(readyL) }()
	defer func() { _ = srv.Close() }()

	// A UDP port nobody listens on (yet).
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dnsPort := pc.LocalAddr().(*net.UDPAddr).Port
	_ = pc.Close()

	p := ClusterPlan{Name: "member-1", DNS: DNSPlan{
		Addr: netip.MustParseAddr("127.0.0.1"), Port: dnsPort, ReadyPort: readyL.Addr().(*net.TCPAddr).Port,
	}}
	ctx := context.Background()
	if err := dnsReady(ctx, p); err == nil || !strings.Contains(err.Error(), "does not answer DNS yet") {
		t.Fatalf("/ready answers but nothing serves DNS: got %v, want 'does not answer DNS yet'", err)
	}

	pc, err = net.ListenPacket("udp", p.DNS.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	server := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetRcode(r, dns.RcodeNameError)
		_ = w.WriteMsg(m)
	})}
	go func() { _ = server.ActivateAndServe() }()
	defer func() { _ = server.Shutdown() }()
	if err := dnsReady(ctx, p); err != nil {
		t.Fatalf("/ready answers and the DNS port answers (NXDOMAIN is an answer): %v", err)
	}

	healthy.Store(false)
	if err := dnsReady(ctx, p); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("/ready says 503: got %v", err)
	}
}
