package dns

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"text/template"
	"time"

	"github.com/miekg/dns"

	"antreaplus.io/antreaplus/test/framework"
)

// corefile is the configuration each test server runs, both plugins
// reading member-1: the federation plugin answering clusterset.local and
// the federation names, the stock kubernetes plugin cluster.local and the
// reverse zones (TestDocumentedCorefile runs docs/dns.md's Corefile, with
// forward). The stock chain is the kubernetes plugin alone with its
// multicluster option, as stock CoreDNS serves clusterset.local.
var corefile = template.Must(template.New("Corefile").Parse(`clusterset.local cluster.local in-addr.arpa ip6.arpa {
    bind {{.Addr}}
    ready {{.Addr}}:{{.ReadyPort}}
    errors
    {{- if .Stock}}
    kubernetes clusterset.local {
        kubeconfig {{.Kubeconfig}} {{.Context}}
        multicluster clusterset.local
        labels multicluster.kubernetes.io/service-name
    }
    {{- else}}
    federation cluster.local {
        kubeconfig {{.Kubeconfig}} {{.Context}}
        {{- if .FederationID}}
        federation_id {{.FederationID}}
        {{- end}}
        {{- if .ClusterID}}
        cluster_id {{.ClusterID}}
        {{- end}}
    }
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig {{.Kubeconfig}} {{.Context}}
        pods insecure
    }
    {{- end}}
}
`))

type serverConfig struct {
	Addr, Kubeconfig, Context, FederationID string
	// ClusterID is the federation plugin's cluster_id (locality).
	ClusterID       string
	Port, ReadyPort int
	// Stock is the stock chain: the kubernetes plugin alone, with its
	// multicluster option.
	Stock bool
}

// server is one running CoreDNS process of this repository's build.
type server struct {
	cfg serverConfig
	cmd *exec.Cmd
	log *framework.LockedBuffer
}

// startServer starts the CoreDNS build on a loopback address of its own
// and waits until it is ready (every informer listed). An empty
// federationID makes it read the ClusterMembership.
func startServer(t *testing.T, federationID string) *server {
	t.Helper()
	return start(t, serverConfig{FederationID: federationID})
}

// startStock starts the same binary with the kubernetes plugin alone.
func startStock(t *testing.T) *server {
	t.Helper()
	return start(t, serverConfig{Stock: true})
}

func start(t *testing.T, cfg serverConfig) *server {
	t.Helper()
	bin := buildCoreDNS(t)
	cfg.Addr, cfg.Port, cfg.ReadyPort = freeAddr(t)
	if cfg.Kubeconfig == "" {
		cfg.Kubeconfig, cfg.Context = clusters.Sandbox.KubeconfigPath(), member
	}
	var b bytes.Buffer
	if err := corefile.Execute(&b, cfg); err != nil {
		t.Fatal(err)
	}
	s := run(t, bin, cfg, b.String())
	s.waitReady(t)
	return s
}

// run starts bin with the Corefile text, without waiting; cfg says where
// it listens.
func run(t *testing.T, bin string, cfg serverConfig, text string) *server {
	t.Helper()
	path := filepath.Join(t.TempDir(), "Corefile")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &server{cfg: cfg, log: &framework.LockedBuffer{}}
	s.cmd = exec.Command(bin, "-conf", path, "-dns.port", strconv.Itoa(cfg.Port))
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		_ = s.cmd.Wait()
		if t.Failed() {
			t.Logf("CoreDNS output:\n%s", s.log.String())
		}
	})
	return s
}

func (s *server) waitReady(t *testing.T) {
	t.Helper()
	framework.WaitHTTP(t, fmt.Sprintf("http://%s:%d/ready", s.cfg.Addr, s.cfg.ReadyPort), 20*time.Second, s.log)
}

// exchangeFrom asks one question over proto ("udp" or "tcp") from the
// client address (a loopback address; any when invalid).
func (s *server) exchangeFrom(client netip.Addr, proto, name string, qtype uint16) (*dns.Msg, error) {
	c := &dns.Client{Net: proto, Timeout: 2 * time.Second}
	if client.IsValid() {
		c.Dialer = &net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.UDPAddr{IP: client.AsSlice()}}
		if proto == "tcp" {
			c.Dialer.LocalAddr = &net.TCPAddr{IP: client.AsSlice()}
		}
	}
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	r, _, err := c.Exchange(m, s.endpoint())
	return r, err
}

// endpoint is host:port of the server's DNS port.
func (s *server) endpoint() string { return net.JoinHostPort(s.cfg.Addr, strconv.Itoa(s.cfg.Port)) }

// answer is the outcome of a query: the rcode and the answer section's
// records without their headers, sorted.
type answer struct {
	rcode int
	data  []string
}

func (a answer) String() string { return fmt.Sprintf("%s %v", dns.RcodeToString[a.rcode], a.data) }

func toAnswer(m *dns.Msg) answer {
	a := answer{rcode: m.Rcode}
	for _, rr := range m.Answer {
		a.data = append(a.data, strings.TrimPrefix(rr.String(), rr.Header().String()))
	}
	slices.Sort(a.data)
	return a
}

// check asks over UDP and over TCP and compares both answers with want.
func (s *server) check(name string, qtype uint16, rcode int, want ...string) error {
	return s.checkFrom(netip.Addr{}, name, qtype, rcode, want...)
}

// checkFrom is check from a client address.
func (s *server) checkFrom(client netip.Addr, name string, qtype uint16, rcode int, want ...string) error {
	slices.Sort(want)
	exp := answer{rcode: rcode, data: want}
	for _, proto := range []string{"udp", "tcp"} {
		m, err := s.exchangeFrom(client, proto, name, qtype)
		if err != nil {
			return fmt.Errorf("%s %s over %s: %w", dns.TypeToString[qtype], name, proto, err)
		}
		if got := toAnswer(m); got.String() != exp.String() {
			return fmt.Errorf("%s %s over %s from %v: got %s, want %s", dns.TypeToString[qtype], name, proto, client, got, exp)
		}
	}
	return nil
}

// expect waits until the server gives the answer (the informers may lag an API write).
func (s *server) expect(t *testing.T, name string, qtype uint16, rcode int, want ...string) {
	t.Helper()
	eventually(t, func() error { return s.check(name, qtype, rcode, want...) })
}

// reverse is the PTR query name of an address.
func reverse(addr string) string {
	name, err := dns.ReverseAddr(addr)
	if err != nil {
		panic(err)
	}
	return name
}

// expectFrom is expect from a client address.
func (s *server) expectFrom(t *testing.T, client netip.Addr, name string, qtype uint16, rcode int, want ...string) {
	t.Helper()
	eventually(t, func() error { return s.checkFrom(client, name, qtype, rcode, want...) })
}

func eventually(t *testing.T, check func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// buildCoreDNS returns the program of cmd/coredns.
func buildCoreDNS(t *testing.T) string {
	t.Helper()
	binary, err := framework.Binary("coredns")
	if err != nil {
		t.Fatal(err)
	}
	return binary
}

// freeAddr picks a loopback address of 127.53.0.0/16 and two ports free on
// it: the DNS port (UDP and TCP) and the ready port.
func freeAddr(t *testing.T) (string, int, int) {
	t.Helper()
	for range 100 {
		addr := fmt.Sprintf("127.53.%d.%d", rand.IntN(250)+1, rand.IntN(250)+1)
		port, ready := 20000+rand.IntN(10000), 20000+rand.IntN(10000)
		if port != ready && free(addr, port, true) && free(addr, ready, false) {
			return addr, port, ready
		}
	}
	t.Fatal("no free loopback address and ports")
	return "", 0, 0
}

func free(addr string, port int, udp bool) bool {
	hp := net.JoinHostPort(addr, strconv.Itoa(port))
	l, err := net.Listen("tcp", hp)
	if err != nil {
		return false
	}
	_ = l.Close()
	if !udp {
		return true
	}
	p, err := net.ListenPacket("udp", hp)
	if err != nil {
		return false
	}
	_ = p.Close()
	return true
}
