package vmagent

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/miekg/dns"

	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/vmagent/dnsforward"
	"antreaplus.io/antreaplus/test/infrastructure/distributiontest"
)

// memberDNS is a member's DNS server on loopback, over TCP only, that
// answers every A question with ip.
func memberDNS(t *testing.T, ip string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &dns.Server{Listener: l, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, req *dns.Msg) {
		resp := new(dns.Msg)
		resp.SetReply(req)
		resp.Answer = []dns.RR{&dns.A{Hdr: dns.RR_Header{Name: req.Question[0].Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 5},
			A: net.ParseIP(ip)}}
		_ = w.WriteMsg(resp)
	})}
	go func() { _ = srv.ActivateAndServe() }()
	t.Cleanup(func() { _ = srv.Shutdown() })
	return l.Addr().String()
}

// startDNSAgent runs an agent with DNS on 127.0.0.1 (a free port) and the
// resolver file resolvConf until the test ends, or stop is called.
func startDNSAgent(t *testing.T, opts consumer.Options, state, resolvConf string) (*Agent, func()) {
	t.Helper()
	c, err := consumer.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Client: c, Firewall: &fakeFirewall{}, StatePath: state, Version: "test", RetryInterval: 50 * time.Millisecond,
		Interfaces: func() []string { return []string{"eth0"} }, Log: testr.New(t),
		DNS: &DNSOptions{Listen: "127.0.0.1:0", ResolvConf: resolvConf, Timeout: time.Second, Interval: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); _ = a.Run(ctx) }()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return a, stop
}

// lookup asks the agent's forwarder for name's A record over UDP.
func lookup(t *testing.T, a *Agent, name string) string {
	t.Helper()
	q := new(dns.Msg)
	q.SetQuestion(dns.Fqdn(name), dns.TypeA)
	resp, _, err := (&dns.Client{Timeout: 3 * time.Second}).Exchange(q, a.Status().DNSForwarder.String())
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if resp.Rcode != dns.RcodeSuccess || len(resp.Answer) == 0 {
		return dns.RcodeToString[resp.Rcode]
	}
	return resp.Answer[0].(*dns.A).A.String()
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func TestAgentForwardsFederationNamesTheServerOffers(t *testing.T) {
	member := memberDNS(t, "10.201.0.10")
	offered := member
	s := distributiontest.New(t, func(o *policydistribution.ServerOptions) { o.DNSServer = offered })
	opts := s.ClientOptions(s.AgentToken("ns", "vm"))
	dir := t.TempDir()
	state, resolvConf := filepath.Join(dir, "state.json"), filepath.Join(dir, "resolv.conf")
	original := "nameserver 10.0.0.2\nsearch corp.example.com\n"
	if err := os.WriteFile(resolvConf, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}

	a, stop := startDNSAgent(t, opts, state, resolvConf)
	eventually(t, "the resolver file pointed at the forwarder", func() bool { return dnsforward.Managed([]byte(readFile(t, resolvConf))) })
	fwd := a.Status().DNSForwarder
	if ns := dnsforward.Nameservers([]byte(readFile(t, resolvConf))); len(ns) != 2 || ns[0] != fwd.Addr() || ns[1].String() != "10.0.0.2" {
		t.Errorf("the resolver file names %v; want the forwarder %s, then 10.0.0.2", ns, fwd.Addr())
	}
	if got := lookup(t, a, "web.shop.svc.clusterset.local"); got != "10.201.0.10" {
		t.Errorf("web.shop.svc.clusterset.local: %s, want the member's answer", got)
	}
	saved, err := ReadState(state)
	if err != nil || saved.DNS == nil || saved.DNS.Member != member || saved.DNS.Original == nil || *saved.DNS.Original != original {
		t.Fatalf("the state file keeps DNS %+v (%v); want the member and the original file", saved.DNS, err)
	}

	// A DHCP client writes the file again: it is the new original.
	dhcp := "nameserver 10.9.9.9\n"
	if err := os.WriteFile(resolvConf, []byte(dhcp), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the rewritten file taken as the new original", func() bool {
		st, _ := ReadState(state)
		return dnsforward.Managed([]byte(readFile(t, resolvConf))) && st.DNS != nil && st.DNS.Original != nil && *st.DNS.Original == dhcp
	})
	// The state file is saved before the forwarder takes the new upstreams
	// (CI once read them in between): wait for both.
	eventually(t, "the forwarder sending other names to the new original's servers", func() bool {
		a.dns.mu.Lock()
		defer a.dns.mu.Unlock()
		return slices.Equal(a.dns.fwd.Routes().Upstreams, []string{"10.9.9.9:53"})
	})

	// A new agent process while the server is down forwards at once, from
	// the state file.
	stop()
	s.Down()
	a, stop = startDNSAgent(t, opts, state, resolvConf)
	eventually(t, "the forwarder of the restarted agent", func() bool { return a.Status().DNSForwarder.IsValid() })
	if got := lookup(t, a, "web.shop.svc.clusterset.local"); got != "10.201.0.10" {
		t.Errorf("after a restart with the server down: %s, want the member's answer", got)
	}

	// The server comes back offering no DNS server: the file goes back.
	offered = ""
	s.Up()
	eventually(t, "the original file back", func() bool { return readFile(t, resolvConf) == dhcp })
	eventually(t, "the forwarder stopped", func() bool { return !a.Status().DNSForwarder.IsValid() })
	if st, _ := ReadState(state); st.DNS != nil {
		t.Errorf("the state file still keeps DNS %+v", st.DNS)
	}
	stop()
}

func TestUninstallDNSRestoresTheOriginal(t *testing.T) {
	s := distributiontest.New(t, func(o *policydistribution.ServerOptions) { o.DNSServer = "127.0.0.1:1" })
	dir := t.TempDir()
	state, resolvConf := filepath.Join(dir, "state.json"), filepath.Join(dir, "resolv.conf")
	original := "nameserver 10.0.0.2\noptions rotate\n"
	if err := os.WriteFile(resolvConf, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	a, stop := startDNSAgent(t, s.ClientOptions(s.AgentToken("ns", "vm")), state, resolvConf)
	eventually(t, "the resolver file pointed at the forwarder", func() bool { return dnsforward.Managed([]byte(readFile(t, resolvConf))) })
	// The member's server does not answer: SERVFAIL, at once.
	if got := lookup(t, a, "web.shop.svc.clusterset.local"); got != "SERVFAIL" {
		t.Errorf("with the member's server down: %s, want SERVFAIL", got)
	}
	stop()
	if !dnsforward.Managed([]byte(readFile(t, resolvConf))) {
		t.Error("a stopped agent put the file back: the fallbacks are there for that")
	}
	if err := UninstallDNS(state, resolvConf); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, resolvConf); got != original {
		t.Errorf("after uninstall the file reads\n%s\nwant\n%s", got, original)
	}
}

func TestAgentWithDNSOffPutsTheFileBack(t *testing.T) {
	s := distributiontest.New(t, func(o *policydistribution.ServerOptions) { o.DNSServer = "127.0.0.1:1" })
	opts := s.ClientOptions(s.AgentToken("ns", "vm"))
	dir := t.TempDir()
	state, resolvConf := filepath.Join(dir, "state.json"), filepath.Join(dir, "resolv.conf")
	original := "nameserver 10.0.0.2\n"
	if err := os.WriteFile(resolvConf, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stop := startDNSAgent(t, opts, state, resolvConf)
	eventually(t, "the resolver file pointed at the forwarder", func() bool { return dnsforward.Managed([]byte(readFile(t, resolvConf))) })
	stop()
	// The same VM's agent, run with DNS off.
	startAgent(t, opts, &fakeFirewall{}, state)
	eventually(t, "the original file back", func() bool { return readFile(t, resolvConf) == original })
	eventually(t, "the DNS state forgotten", func() bool { st, _ := ReadState(state); return st.DNS == nil })
}
