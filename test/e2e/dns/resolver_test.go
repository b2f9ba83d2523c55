package dns

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/test/framework"
)

// The first lines of the two Corefiles docs/dns.md documents for a real
// cluster.
const (
	completeMarker = "# A member's cluster DNS: AntreaPlus's CoreDNS build in place of the cluster's CoreDNS."
	forwardMarker  = "# Stock CoreDNS sending the federation's zones to AntreaPlus's DNS server."
)

// TestDocumentedCorefile starts the build with the Corefile docs/dns.md
// documents for a real cluster, read from that file, changed only where a
// test cannot be a cluster (see site.localize), and checks that it is a
// complete resolver: the member's own Services and their PTR, the
// clusterset.local and federation names, and names outside the cluster
// forwarded to the upstream resolver (a test server here). Then it starts
// the documented alternative, stock CoreDNS's plugins forwarding the
// federation's zones to the first server, and asks it the federation's
// names.
func TestDocumentedCorefile(t *testing.T) {
	ensureMembership(t)
	upstream := startUpstream(t)
	ns := clusters.Namespace(t, member)
	c := clusters.Client(t, member)
	local := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "local"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	create(t, local, serviceImport(ns, "web", withIPs("10.96.210.10"), withPorts(servicePort("http", 80))))
	apiService := &corev1.Service{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: "default", Name: "kubernetes"}, apiService); err != nil {
		t.Fatal(err)
	}

	doc := documentedCorefile(t, completeMarker)
	st := newSite(t, upstream)
	s := run(t, buildCoreDNS(t), st.cfg, st.localize(t, doc, nil))
	s.waitReady(t)
	localName := "local." + ns + ".svc.cluster.local."
	s.expect(t, localName, dns.TypeA, dns.RcodeSuccess, local.Spec.ClusterIP)
	s.expect(t, "kubernetes.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, apiService.Spec.ClusterIP)
	s.expect(t, reverse(local.Spec.ClusterIP), dns.TypePTR, dns.RcodeSuccess, localName)
	s.expect(t, "nothere."+ns+".svc.cluster.local.", dns.TypeA, dns.RcodeNameError)
	s.expect(t, "web."+ns+".svc.clusterset.local.", dns.TypeA, dns.RcodeSuccess, "10.96.210.10")
	s.expect(t, "web."+ns+"."+federationID+".svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "10.96.210.10")
	s.expect(t, reverse("10.96.210.10"), dns.TypePTR, dns.RcodeSuccess, "web."+ns+".svc.clusterset.local.")
	// Outside the cluster: the upstream's answers, PTR included (the
	// kubernetes plugin falls through in the reverse zones).
	s.expect(t, "www.example.org.", dns.TypeA, dns.RcodeSuccess, "203.0.113.80")
	s.expect(t, "nothere.example.org.", dns.TypeA, dns.RcodeNameError)
	s.expect(t, reverse("203.0.113.80"), dns.TypePTR, dns.RcodeSuccess, "www.example.org.")

	// The alternative: the cluster's CoreDNS forwarding the federation's zones.
	alt := documentedCorefile(t, forwardMarker)
	st2 := newSite(t, upstream)
	fwd := run(t, buildCoreDNS(t), st2.cfg, st2.localize(t, alt, []substitution{
		{"forward . 10.96.0.53", "forward . " + s.endpoint(), 2},
		{"prod.svc.cluster.local:", federationID + ".svc.cluster.local:", 1},
	}))
	fwd.expect(t, "web."+ns+".svc.clusterset.local.", dns.TypeA, dns.RcodeSuccess, "10.96.210.10")
	fwd.expect(t, "web."+ns+"."+federationID+".svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "10.96.210.10")
	fwd.expect(t, "nothere."+ns+".svc.clusterset.local.", dns.TypeA, dns.RcodeNameError)
}

// documentedCorefile is the fenced block of docs/dns.md whose first line
// is marker.
func documentedCorefile(t *testing.T, marker string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "docs", "dns.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```corefile\n(.*?)```").FindAllStringSubmatch(string(raw), -1)
	var found []string
	for _, b := range blocks {
		if strings.HasPrefix(b[1], marker+"\n") {
			found = append(found, b[1])
		}
	}
	if len(found) != 1 {
		t.Fatalf("docs/dns.md has %d corefile blocks starting with %q, want 1", len(found), marker)
	}
	return found[0]
}

// site is where a test server runs instead of a cluster's Pod.
type site struct {
	cfg                     serverConfig
	healthPort, metricsPort int
	upstream                string
}

func newSite(t *testing.T, upstream string) site {
	t.Helper()
	st := site{upstream: upstream}
	st.cfg.Addr, st.cfg.Port, st.cfg.ReadyPort = freeAddr(t)
	st.cfg.Kubeconfig, st.cfg.Context = clusters.Sandbox.KubeconfigPath(), member
	st.healthPort = freePort(t, st.cfg.Addr, st.cfg.Port, st.cfg.ReadyPort)
	st.metricsPort = freePort(t, st.cfg.Addr, st.cfg.Port, st.cfg.ReadyPort, st.healthPort)
	return st
}

// substitution replaces old by new, which must occur count times.
type substitution struct {
	old, new string
	count    int
}

// serverKey is the first line of a server block on port 53.
var serverKey = regexp.MustCompile(`(?m)^(\S+):53 \{$`)

// localize makes a documented Corefile run here, changing only what a test
// cannot take from a cluster: each server block listens on the test's
// address and port; health, ready and prometheus on the test's ports; the
// plugins use the test cluster's kubeconfig instead of a Pod's service
// account; forward sends to the test's upstream instead of the node's
// resolv.conf. Each change must apply exactly as often as expected, so
// that the documented text cannot drift from what runs.
func (st site) localize(t *testing.T, corefile string, more []substitution) string {
	t.Helper()
	keys := len(serverKey.FindAllString(corefile, -1))
	if keys == 0 {
		t.Fatalf("no server block on port 53 in:\n%s", corefile)
	}
	corefile = serverKey.ReplaceAllString(corefile, fmt.Sprintf("$1:%d {\n    bind %s", st.cfg.Port, st.cfg.Addr))
	kube := fmt.Sprintf("kubeconfig %s %s", st.cfg.Kubeconfig, st.cfg.Context)
	subs := []substitution{
		{"    health {\n", fmt.Sprintf("    health %s:%d {\n", st.cfg.Addr, st.healthPort), -1},
		{"    ready\n", fmt.Sprintf("    ready %s:%d\n", st.cfg.Addr, st.cfg.ReadyPort), -1},
		{"    prometheus :9153\n", fmt.Sprintf("    prometheus %s:%d\n", st.cfg.Addr, st.metricsPort), -1},
		{"    forward . /etc/resolv.conf {\n", "    forward . " + st.upstream + " {\n", -1},
		{"    federation cluster.local\n", "    federation cluster.local {\n        " + kube + "\n    }\n", -1},
		{"    kubernetes cluster.local in-addr.arpa ip6.arpa {\n", "    kubernetes cluster.local in-addr.arpa ip6.arpa {\n        " + kube + "\n", -1},
	}
	if more != nil {
		subs = more
	}
	for _, s := range subs {
		n := strings.Count(corefile, s.old)
		if (s.count < 0 && n != 1) || (s.count >= 0 && n != s.count) {
			t.Fatalf("%q occurs %d times in the documented Corefile:\n%s", s.old, n, corefile)
		}
		corefile = strings.ReplaceAll(corefile, s.old, s.new)
	}
	return corefile
}

// freePort is a TCP port free on addr, other than taken.
func freePort(t *testing.T, addr string, taken ...int) int {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if !slices.Contains(taken, p) {
			return p
		}
	}
	t.Fatal("no free port")
	return 0
}

// startUpstream runs a DNS server over UDP and TCP standing for the
// resolvers outside the cluster: www.example.org is 203.0.113.80 (and back),
// every other name NXDOMAIN. It returns its host:port.
func startUpstream(t *testing.T) string {
	t.Helper()
	addr, port, _ := freeAddr(t)
	hp := net.JoinHostPort(addr, strconv.Itoa(port))
	handler := dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(r)
		q := r.Question[0]
		switch {
		case strings.EqualFold(q.Name, "www.example.org.") && q.Qtype == dns.TypeA:
			m.Answer = []dns.RR{&dns.A{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60}, A: net.ParseIP("203.0.113.80")}}
		case strings.EqualFold(q.Name, reverse("203.0.113.80")) && q.Qtype == dns.TypePTR:
			m.Answer = []dns.RR{&dns.PTR{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypePTR, Class: dns.ClassINET, Ttl: 60}, Ptr: "www.example.org."}}
		default:
			m.Rcode = dns.RcodeNameError
		}
		_ = w.WriteMsg(m)
	})
	for _, network := range []string{"udp", "tcp"} {
		started := make(chan struct{})
		srv := &dns.Server{Addr: hp, Net: network, Handler: handler, NotifyStartedFunc: func() { close(started) }}
		errs := make(chan error, 1)
		go func() { errs <- srv.ListenAndServe() }()
		select {
		case <-started:
		case err := <-errs:
			t.Fatalf("upstream DNS server on %s/%s: %v", hp, network, err)
		}
		t.Cleanup(func() { _ = srv.Shutdown() })
	}
	return hp
}
