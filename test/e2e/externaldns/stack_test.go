package externaldns

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"antreaplus.io/antreaplus/pkg/toolchain"
	"antreaplus.io/antreaplus/test/framework"
)

// zone is the domain the tests publish in: ExternalDNS's --domain-filter
// and the zone CoreDNS serves from etcd.
const zone = "ext.antreaplus.test"

// owner is ExternalDNS's TXT registry owner ID.
const owner = "antreaplus-test"

// interval is ExternalDNS's --interval (it also syncs on events, at most
// every --min-event-sync-interval, the same).
const interval = time.Second

var (
	epGVR = schema.GroupVersionResource{Group: "externaldns.k8s.io", Version: "v1alpha1", Resource: "dnsendpoints"}
)

// stack is one etcd, one ExternalDNS writing into it from the DNSEndpoints
// of a namespace, and one CoreDNS answering the zone from it.
type stack struct {
	ns   string
	dyn  dynamic.Interface
	etcd *clientv3.Client
	dns  string // host:port of CoreDNS
	edns *framework.LockedBuffer
}

// startStack starts the stack for the test (stopped when it ends), its
// ExternalDNS publishing the DNSEndpoints of member's namespace ns. The
// tools missing fail the test under ANTREAPLUS_REQUIRE_CLUSTERS=1 and skip
// it otherwise.
func startStack(t *testing.T, ns string) *stack {
	t.Helper()
	tools := toolchain.Toolchain{Dir: toolchain.DefaultDir()}
	if missing := tools.Missing(toolchain.ExternalDNSTools()...); len(missing) > 0 {
		msg := fmt.Sprintf("tools %s missing from %s (run 'make tools')", strings.Join(missing, ", "), tools.Dir)
		if os.Getenv(framework.RequireEnv) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	coredns, err := framework.Binary("coredns")
	if err != nil {
		t.Fatal(err)
	}
	s := &stack{ns: ns}
	s.dyn, err = dynamic.NewForConfig(clusters.Config(t, member))
	if err != nil {
		t.Fatal(err)
	}
	framework.InstallDNSEndpointCRD(t, clusters.Config(t, member))

	etcdURL := startEtcd(t, tools.Path("etcd"))
	s.etcd, err = clientv3.New(clientv3.Config{Endpoints: []string{etcdURL}, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.etcd.Close() })

	addr, port, ready := "127.0.0.1", freePort(t), freePort(t)
	corefile := fmt.Sprintf(`%s {
    bind %s
    ready %s:%d
    errors
    etcd %s {
        path /skydns
        endpoint %s
    }
}
`, zone, addr, addr, ready, zone, etcdURL)
	path := filepath.Join(t.TempDir(), "Corefile")
	if err := os.WriteFile(path, []byte(corefile), 0o644); err != nil {
		t.Fatal(err)
	}
	dnsLog := startProcess(t, "CoreDNS", nil, coredns, "-conf", path, "-dns.port", strconv.Itoa(port))
	s.dns = net.JoinHostPort(addr, strconv.Itoa(port))
	framework.WaitHTTP(t, fmt.Sprintf("http://%s:%d/ready", addr, ready), 30*time.Second, dnsLog)

	// ExternalDNS reads the cluster through a kubeconfig whose current
	// context is the member.
	kc, err := clientcmd.LoadFromFile(clusters.Sandbox.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	kc.CurrentContext = member
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, kubeconfig); err != nil {
		t.Fatal(err)
	}
	metrics := net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(t)))
	s.edns = startProcess(t, "ExternalDNS", []string{"ETCD_URLS=" + etcdURL}, tools.Path("external-dns"),
		"--kubeconfig="+kubeconfig,
		"--namespace="+s.ns,
		"--source=crd",
		"--crd-source-apiversion=externaldns.k8s.io/v1alpha1",
		"--crd-source-kind=DNSEndpoint",
		"--provider=coredns",
		"--registry=txt",
		"--txt-owner-id="+owner,
		"--domain-filter="+zone,
		"--policy=sync",
		"--interval="+interval.String(),
		"--events",
		"--min-event-sync-interval="+interval.String(),
		"--metrics-address="+metrics,
		"--log-level=debug")
	framework.WaitHTTP(t, "http://"+metrics+"/healthz", 30*time.Second, s.edns)
	return s
}

// startEtcd runs a one-member etcd on loopback and returns its client URL.
func startEtcd(t *testing.T, bin string) string {
	t.Helper()
	client := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	peer := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	log := startProcess(t, "etcd", nil, bin,
		"--name=default",
		"--data-dir="+filepath.Join(t.TempDir(), "etcd"),
		"--listen-client-urls="+client,
		"--advertise-client-urls="+client,
		"--listen-peer-urls="+peer,
		"--initial-advertise-peer-urls="+peer,
		"--initial-cluster=default="+peer,
		"--unsafe-no-fsync",
		"--log-level=warn")
	framework.WaitHTTP(t, client+"/health", 30*time.Second, log)
	return client
}

// startProcess runs bin until the test ends; its output is logged when the
// test failed.
func startProcess(t *testing.T, name string, env []string, bin string, args ...string) *framework.LockedBuffer {
	t.Helper()
	out := &framework.LockedBuffer{}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", name, out.String())
		}
	})
	return out
}

// freePort returns a TCP (and, almost surely, UDP) port free on loopback.
func freePort(t *testing.T) int {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		p, err := net.ListenPacket("udp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue
		}
		_ = p.Close()
		return port
	}
	t.Fatal("no free loopback port")
	return 0
}

// record is one endpoint of a DNSEndpoint's spec.
func record(name, recordType string, targets ...string) map[string]any {
	ts := make([]any, len(targets))
	for i, target := range targets {
		ts[i] = target
	}
	return map[string]any{"dnsName": name, "recordType": recordType, "targets": ts, "recordTTL": int64(30)}
}

// create creates a DNSEndpoint of the stack's namespace.
func (s *stack) create(t *testing.T, name string, records ...map[string]any) {
	t.Helper()
	eps := make([]any, len(records))
	for i, r := range records {
		eps[i] = r
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "externaldns.k8s.io/v1alpha1",
		"kind":       "DNSEndpoint",
		"metadata":   map[string]any{"name": name, "namespace": s.ns},
		"spec":       map[string]any{"endpoints": eps},
	}}
	if _, err := s.dyn.Resource(epGVR).Namespace(s.ns).Create(t.Context(), obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating DNSEndpoint %s: %v", name, err)
	}
}

// update replaces a DNSEndpoint's records.
func (s *stack) update(t *testing.T, name string, records ...map[string]any) {
	t.Helper()
	eps := make([]any, len(records))
	for i, r := range records {
		eps[i] = r
	}
	framework.Eventually(t, 10*time.Second, func() error {
		obj, err := s.dyn.Resource(epGVR).Namespace(s.ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := unstructured.SetNestedSlice(obj.Object, eps, "spec", "endpoints"); err != nil {
			return err
		}
		_, err = s.dyn.Resource(epGVR).Namespace(s.ns).Update(t.Context(), obj, metav1.UpdateOptions{})
		return err
	})
}

// remove deletes a DNSEndpoint.
func (s *stack) remove(t *testing.T, name string) {
	t.Helper()
	if err := s.dyn.Resource(epGVR).Namespace(s.ns).Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting DNSEndpoint %s: %v", name, err)
	}
}

// query asks CoreDNS one question over UDP and returns the rcode and the
// answer section's records without their headers, sorted.
func (s *stack) query(name string, qtype uint16) (int, []string, error) {
	c := &dns.Client{Timeout: 2 * time.Second}
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	r, _, err := c.Exchange(m, s.dns)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", dns.TypeToString[qtype], name, err)
	}
	var data []string
	for _, rr := range r.Answer {
		data = append(data, strings.TrimPrefix(rr.String(), rr.Header().String()))
	}
	slices.Sort(data)
	return r.Rcode, data, nil
}

// check compares CoreDNS's answer with the rcode and records wanted.
func (s *stack) check(name string, qtype uint16, rcode int, want ...string) error {
	got, data, err := s.query(name, qtype)
	if err != nil {
		return err
	}
	slices.Sort(want)
	if got != rcode || !slices.Equal(data, want) {
		return fmt.Errorf("%s %s: got %s %q, want %s %q", dns.TypeToString[qtype], name,
			dns.RcodeToString[got], data, dns.RcodeToString[rcode], want)
	}
	return nil
}

// expect waits until CoreDNS gives the answer (ExternalDNS syncs every
// interval and on events).
func (s *stack) expect(t *testing.T, name string, qtype uint16, rcode int, want ...string) {
	t.Helper()
	framework.Eventually(t, 15*time.Second, func() error { return s.check(name, qtype, rcode, want...) })
}
