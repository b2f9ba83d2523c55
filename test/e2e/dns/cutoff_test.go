package dns

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"antreaplus.io/antreaplus/test/framework"
)

// TestCutOffFromItsAPIServer puts a TCP proxy between the server and its
// API server and makes it refuse connections, as a dead API server does,
// for longer than client-go's first back-offs. The
// server answers from its cache meanwhile; once the path is back it
// replaces its informers (package outage) and, within seconds rather than
// after the informers' back-off (which reaches tens of seconds), answers
// an import created during the cut and forgets one deleted during it.
func TestCutOffFromItsAPIServer(t *testing.T) {
	proxy, kubeconfig := proxiedKubeconfig(t)
	s := start(t, serverConfig{FederationID: "fed", Kubeconfig: kubeconfig, Context: member})
	ns := clusters.Namespace(t, member)
	stays := serviceImport(ns, "stays", withIPs("10.96.205.10"), withPorts(servicePort("http", 80)))
	goes := serviceImport(ns, "goes", withIPs("10.96.205.11"), withPorts(servicePort("http", 80)))
	create(t, stays, goes)
	s.expect(t, "stays."+ns+".fed.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "10.96.205.10")
	s.expect(t, "goes."+ns+".fed.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "10.96.205.11")

	proxy.Refuse()
	cut := time.Now()
	t.Cleanup(func() { _ = proxy.Restore() })
	remove(t, goes)
	create(t, serviceImport(ns, "arrives", withIPs("10.96.205.12"), withPorts(servicePort("http", 80))))
	// A Service of the member itself, for the stock kubernetes plugin.
	local := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "local-arrives"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	create(t, local)
	for time.Since(cut) < 25*time.Second {
		// Cut off, the server answers from what it had, under both names.
		for _, name := range []string{"stays." + ns + ".fed.svc.cluster.local.", "stays." + ns + ".svc.clusterset.local."} {
			if err := s.check(name, dns.TypeA, dns.RcodeSuccess, "10.96.205.10"); err != nil {
				t.Fatalf("%s into the cut: %v", time.Since(cut).Round(time.Second), err)
			}
		}
		time.Sleep(500 * time.Millisecond)
	}

	if err := proxy.Restore(); err != nil {
		t.Fatalf("listening again on %s: %v", proxy.Addr(), err)
	}
	back := time.Now()
	// Both zones of an import are the federation plugin's, answered from
	// the informers renewed after the outage.
	s.expect(t, "arrives."+ns+".fed.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "10.96.205.12")
	s.expect(t, "arrives."+ns+".svc.clusterset.local.", dns.TypeA, dns.RcodeSuccess, "10.96.205.12")
	// The figure of docs/dns.md: from the API server answering again to a
	// new import answered (target < 5 s).
	t.Logf("after a 25 s cut, a new import answered %s after the path came back (target < 5 s)", time.Since(back).Round(100*time.Millisecond))
	s.expect(t, "goes."+ns+".fed.svc.cluster.local.", dns.TypeA, dns.RcodeNameError)
	s.expect(t, "stays."+ns+".fed.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "10.96.205.10")
	t.Logf("after a 25 s cut, every change made during it answered %s after the path came back", time.Since(back).Round(100*time.Millisecond))
	// The member's own names follow too: the server restarted itself once
	// its imports were listed again, so the kubernetes plugin lists afresh
	// instead of waiting out client-go's back-off (tens of seconds after a
	// 25 s cut).
	s.expect(t, "local-arrives."+ns+".svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, local.Spec.ClusterIP)
	t.Logf("after a 25 s cut, a Service of the member created during it answered %s after the path came back", time.Since(back).Round(100*time.Millisecond))
	if !strings.Contains(s.log.String(), "answers again after") {
		t.Errorf("the server did not log replacing its informers:\n%s", s.log.String())
	}
}

// proxiedKubeconfig starts a TCP proxy to member-1's API server and writes
// a kubeconfig whose member-1 context goes through it.
func proxiedKubeconfig(t *testing.T) (*framework.TCPProxy, string) {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(clusters.Sandbox.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	kctx := cfg.Contexts[member]
	if kctx == nil || cfg.Clusters[kctx.Cluster] == nil {
		t.Fatalf("no context %s in %s", member, clusters.Sandbox.KubeconfigPath())
	}
	proxy, server := framework.ProxyServer(t, cfg.Clusters[kctx.Cluster].Server)
	cfg.Clusters[kctx.Cluster].Server = server
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return proxy, path
}
