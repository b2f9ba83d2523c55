package dns

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestAnswersWithAPIServerStopped stops (SIGSTOP) the member's
// kube-apiserver and checks that the server keeps answering every kind of
// name from its cache, over UDP and TCP, then that it sees changes again
// once the API server is back.
func TestAnswersWithAPIServerStopped(t *testing.T) {
	s := startServer(t, "fed")
	ns := clusters.Namespace(t, member)
	create(t,
		serviceImport(ns, "web", withIPs("10.96.204.10"), withPorts(servicePort("http", 80))),
		endpointSlice(ns, "web", "c1", slicePort("http", 80), endpoint("", "192.0.2.51")),
		serviceImport(ns, "db", headless, withPorts(servicePort("sql", 5432))),
		endpointSlice(ns, "db", "c1", slicePort("sql", 5432), endpoint("db-0", "192.0.2.61")))
	checks := []struct {
		name  string
		qtype uint16
		rcode int
		want  []string
	}{
		{"web." + ns + ".svc.clusterset.local.", dns.TypeA, dns.RcodeSuccess, []string{"10.96.204.10"}},
		{"db." + ns + ".svc.clusterset.local.", dns.TypeA, dns.RcodeSuccess, []string{"192.0.2.61"}},
		{"db-0.c1.db." + ns + ".svc.clusterset.local.", dns.TypeA, dns.RcodeSuccess, []string{"192.0.2.61"}},
		{"web." + ns + ".fed.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, []string{"10.96.204.10"}},
		{"web." + ns + ".c1.fed.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, []string{"192.0.2.51"}},
		{"nothere." + ns + ".svc.clusterset.local.", dns.TypeA, dns.RcodeNameError, nil},
		{"dns-version.clusterset.local.", dns.TypeTXT, dns.RcodeSuccess, []string{`"1.0.0"`}},
	}
	for _, c := range checks {
		s.expect(t, c.name, c.qtype, c.rcode, c.want...)
	}

	pid := apiServerPid(t)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	t.Cleanup(resume)
	// The stop reaches every thread of the process asynchronously: a request
	// already being served may still be answered.
	stopped := false
	for end := time.Now().Add(3 * time.Second); !stopped && time.Now().Before(end); {
		if stopped = apiAnswers(t) != nil; !stopped {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if !stopped {
		t.Fatal("the API server still answers 3 s after SIGSTOP")
	}

	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
		for _, c := range checks {
			if err := s.check(c.name, c.qtype, c.rcode, c.want...); err != nil {
				t.Fatalf("with the API server stopped: %v", err)
			}
		}
	}

	resume()
	eventually(t, func() error { return apiAnswers(t) })
	create(t, serviceImport(ns, "late", withIPs("10.96.204.20"), withPorts(servicePort("http", 80))))
	s.expect(t, "late."+ns+".svc.clusterset.local.", dns.TypeA, dns.RcodeSuccess, "10.96.204.20")
	s.expect(t, "late."+ns+".fed.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, "10.96.204.20")
}

// apiServerPid is the pid kwokctl recorded for member-1's kube-apiserver.
func apiServerPid(t *testing.T) int {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(clusters.Sandbox.ClusterDir(member), "pids", "kube-apiserver.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 1 {
		t.Fatalf("bad kube-apiserver pid %q", raw)
	}
	return pid
}

// apiAnswers lists Namespaces with a one-second deadline.
func apiAnswers(t *testing.T) error {
	t.Helper()
	cfg := clusters.Config(t, member)
	cfg.Timeout = time.Second
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{Limit: 1}); err != nil {
		return fmt.Errorf("listing namespaces: %w", err)
	}
	return nil
}
