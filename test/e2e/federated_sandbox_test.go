package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"antreaplus.io/antreaplus/test/e2e/e2ecli"

	"github.com/miekg/dns"

	"antreaplus.io/antreaplus/test/framework"
)

// testFederatedSandbox turns the running 3-cluster sandbox into a federation
// with 'sandbox up --supervisors 2' and walks what 'make demo' shows: every
// member runs a member controller and a DNS server; a Service exported as a
// NodePort from member-1 and as a LoadBalancer from member-2 resolves, by
// DNS, in member-3.
func testFederatedSandbox(t *testing.T, c *e2ecli.CLI, apiPortBase string) { //nolint:thelper // the body of a subtest, not a helper: failures report their own lines
	c.MustRun("sandbox", "up", "--clusters", "3", "--supervisors", "2", "--federation-id", "e2e-sandbox", apiPortBase)

	var status sandboxStatus
	if err := json.Unmarshal([]byte(c.MustOutput("sandbox", "status", "-o", "json")), &status); err != nil {
		t.Fatal(err)
	}
	var got []string
	dnsAddr := map[string]string{}
	for _, s := range status.Services {
		if !s.Ready || s.Pid == 0 {
			t.Errorf("%s's %s is not ready (pid %d): see %s", s.Cluster, s.Kind, s.Pid, s.Log)
		}
		got = append(got, s.Cluster+"/"+s.Kind)
		if s.Kind == "dns" {
			dnsAddr[s.Cluster] = s.Address
		}
	}
	want := []string{
		"member-1/federation-manager", "member-1/member-controller", "member-1/dns",
		"member-2/federation-manager", "member-2/member-controller", "member-2/dns",
		"member-3/member-controller", "member-3/dns",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("sandbox status lists %v, want %v", got, want)
	}
	if out := c.MustRun("sandbox", "status"); !strings.Contains(out, "127.0.53.3:") {
		t.Errorf("sandbox status does not show member-3's DNS address:\n%s", out)
	}

	for _, m := range []string{"member-1", "member-2", "member-3"} {
		c.Kubectl("--context", m, "create", "namespace", "shop")
	}
	c.Kubectl("--context", "member-1", "-n", "shop", "create", "service", "nodeport", "web", "--tcp=80:8080", "--node-port=31080")
	c.Kubectl("--context", "member-2", "-n", "shop", "create", "service", "loadbalancer", "web", "--tcp=80:8080")
	c.Kubectl("--context", "member-2", "-n", "shop", "patch", "service", "web", "--subresource=status", "--type=merge",
		"-p", `{"status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.20"}]}}}`)
	kubeconfig := "--kubeconfig=" + filepath.Join(c.Dir, "kubeconfig")
	c.MustRun("service", "export", "web", "-n", "shop", "--context", "member-1", kubeconfig)
	c.MustRun("service", "export", "web", "-n", "shop", "--context", "member-2", kubeconfig)

	server := dnsAddr["member-3"]
	// The cluster-set name gives the ServiceImport's IP; the per-cluster
	// federation names give what each exporter offers: member-1's node
	// addresses (NodePort), member-2's load balancer.
	framework.Eventually(t, 60*time.Second, func() error {
		for _, q := range []struct{ name, want string }{
			{"web.shop.svc.clusterset.local.", "one cluster-set IP"},
			{"web.shop.member-2.e2e-sandbox.svc.cluster.local.", "203.0.113.20"},
			{"web.shop.member-1.e2e-sandbox.svc.cluster.local.", "172.31.1."},
		} {
			ips, err := lookupA(server, q.name)
			if err != nil {
				return fmt.Errorf("%s: %w", q.name, err)
			}
			ok := len(ips) == 1
			if q.want != "one cluster-set IP" {
				ok = len(ips) > 0 && strings.HasPrefix(ips[0], q.want)
			}
			if !ok {
				return fmt.Errorf("%s answers %v, want %s", q.name, ips, q.want)
			}
		}
		return nil
	})
	list := c.MustRun("service", "list", kubeconfig)
	for _, w := range []string{"shop/web", "NodePort", "LoadBalancer"} {
		if !strings.Contains(list, w) {
			t.Errorf("service list lacks %q:\n%s", w, list)
		}
	}

	testHeadlessAcrossMembers(c, server, dnsAddr["member-1"])
	testScopedNames(c, dnsAddr)

	// A killed DNS server is reported, and 'up' restarts it.
	pid := readPid(t, filepath.Join(c.Dir, "members", "member-3.dns.pid"))
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
	waitGone(t, pid)
	if out, err := c.Run("sandbox", "status"); err == nil || !strings.Contains(out, "member-3: the dns is not ready") {
		t.Errorf("status after killing member-3's DNS server: err=%v\n%s", err, out)
	}
	c.MustRun("sandbox", "up", "--clusters", "3", "--supervisors", "2", "--federation-id", "e2e-sandbox", apiPortBase)
	if ips, err := lookupA(server, "web.shop.svc.clusterset.local."); err != nil || len(ips) != 1 {
		t.Errorf("after up restarted it, member-3's DNS server answers %v %v", ips, err)
	}
}

// testScopedNames scopes exports through the CLI and asks the members' own
// DNS servers: a member outside an export's scope answers NXDOMAIN for
// what only that export gave it, the members inside answer it.
func testScopedNames(c *e2ecli.CLI, dnsAddr map[string]string) {
	t := c.T
	kubeconfig := "--kubeconfig=" + filepath.Join(c.Dir, "kubeconfig")
	c.Kubectl("--context", "member-2", "-n", "shop", "create", "service", "loadbalancer", "ledger", "--tcp=80:8080")
	c.Kubectl("--context", "member-2", "-n", "shop", "patch", "service", "ledger", "--subresource=status", "--type=merge",
		"-p", `{"status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.30"}]}}}`)
	out := c.MustRun("service", "export", "ledger", "-n", "shop", "--context", "member-2", "--to-clusters", "member-1", kubeconfig)
	if !strings.Contains(out, "Exported") || !strings.Contains(out, "Scoped") || !strings.Contains(out, "exported to 2 of 3 members: member-1, member-2") {
		t.Errorf("service export --to-clusters member-1 printed:\n%s", out)
	}
	// member-1's scope of web leaves member-3 only member-2's export of it.
	c.MustRun("service", "export", "web", "-n", "shop", "--context", "member-1", "--to-clusters", "member-2", kubeconfig)
	framework.Eventually(t, 60*time.Second, func() error {
		for _, q := range []struct {
			member, name string
			answers      bool
		}{
			{"member-1", "ledger.shop.svc.clusterset.local.", true},
			{"member-2", "ledger.shop.svc.clusterset.local.", true},
			{"member-3", "ledger.shop.svc.clusterset.local.", false},
			{"member-2", "web.shop.member-1.e2e-sandbox.svc.cluster.local.", true},
			{"member-3", "web.shop.member-1.e2e-sandbox.svc.cluster.local.", false},
			{"member-3", "web.shop.member-2.e2e-sandbox.svc.cluster.local.", true},
		} {
			ips, err := lookupA(dnsAddr[q.member], q.name)
			switch {
			case q.answers && (err != nil || len(ips) == 0):
				return fmt.Errorf("%s's DNS server: %s answers %v (%w), want an address", q.member, q.name, ips, err)
			case !q.answers && (err == nil || err.Error() != "NXDOMAIN"):
				return fmt.Errorf("%s's DNS server: %s answers %v (%s), want NXDOMAIN: not exported to it", q.member, q.name, ips, fmt.Sprint(err))
			}
		}
		return nil
	})
	list := c.MustRun("service", "list", kubeconfig)
	if !strings.Contains(list, "2/3") {
		t.Errorf("service list shows no scope:\n%s", list)
	}
	c.MustRun("service", "export", "web", "-n", "shop", "--context", "member-1", "--to-all", kubeconfig)
	framework.Eventually(t, 60*time.Second, func() error {
		if ips, err := lookupA(dnsAddr["member-3"], "web.shop.member-1.e2e-sandbox.svc.cluster.local."); err != nil || len(ips) == 0 {
			return fmt.Errorf("after --to-all, member-3 answers web.shop.member-1 with %v (%w)", ips, err)
		}
		return nil
	})
}

// lookupA asks server for name's A records.
func lookupA(server, name string) ([]string, error) {
	m := new(dns.Msg)
	m.SetQuestion(name, dns.TypeA)
	r, _, err := (&dns.Client{Timeout: 2 * time.Second}).Exchange(m, server)
	if err != nil {
		return nil, err
	}
	if r.Rcode != dns.RcodeSuccess {
		return nil, fmt.Errorf("%s", dns.RcodeToString[r.Rcode])
	}
	var ips []string
	for _, rr := range r.Answer {
		if a, ok := rr.(*dns.A); ok {
			ips = append(ips, a.A.String())
		}
	}
	slices.Sort(ips)
	return ips, nil
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	for range 100 {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
			return
		}
		if raw, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); strings.Contains(string(raw), ") Z") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("process %d did not exit", pid)
}
