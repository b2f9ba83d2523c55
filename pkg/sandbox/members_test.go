package sandbox

import (
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
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
	ctx := t.Context()
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

// TestCorefile: a member's Corefile is docs/dns.md's Corefile for a real
// cluster, the same plugins in the same order (but health, which the plan
// gives no port), on the member's address and ports and kubeconfig context.
func TestCorefile(t *testing.T) {
	p := ClusterPlan{Name: "member-2", DNS: DNSPlan{Addr: netip.MustParseAddr("127.0.53.2"), Port: 16743, ReadyPort: 16744, MetricsPort: 16745}}
	got := corefile(p, "/sb/kubeconfig")
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "dns.md"))
	if err != nil {
		t.Fatal(err)
	}
	const marker = "# A member's cluster DNS: AntreaPlus's CoreDNS build in place of the cluster's CoreDNS.\n"
	i := strings.Index(string(raw), marker)
	if i < 0 {
		t.Fatalf("docs/dns.md has no Corefile starting with %q", marker)
	}
	doc := string(raw[i:])
	doc = doc[:strings.Index(doc, "```")]
	want := slices.DeleteFunc(directives(doc), func(d string) bool { return d == "health" })
	if d := slices.DeleteFunc(directives(got), func(d string) bool { return d == "bind" }); !slices.Equal(d, want) {
		t.Errorf("the sandbox's plugins %v, docs/dns.md's %v", d, want)
	}
	for _, line := range []string{"bind 127.0.53.2", "ready 127.0.53.2:16744", "prometheus 127.0.53.2:16745",
		"kubeconfig /sb/kubeconfig member-2", "forward . /etc/resolv.conf {"} {
		if !strings.Contains(got, "    "+line+"\n") {
			t.Errorf("no line %q in:\n%s", line, got)
		}
	}
}

// directives are the plugins of a Corefile's server block, in order.
func directives(corefile string) []string {
	var out []string
	for _, line := range strings.Split(corefile, "\n") {
		if strings.HasPrefix(line, "    ") && !strings.HasPrefix(line, "     ") && strings.TrimSpace(line) != "}" {
			out = append(out, strings.Fields(line)[0])
		}
	}
	return out
}
