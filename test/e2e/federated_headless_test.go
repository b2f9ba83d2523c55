package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"antreaplus.io/antreaplus/test/e2e/e2ecli"

	"github.com/miekg/dns"

	"antreaplus.io/antreaplus/test/framework"
)

// statefulDB is a headless Service and the StatefulSet that gives its Pods
// hostnames (db-0, db-1), as a database deployed in two members would be.
const statefulDB = `apiVersion: v1
kind: Service
metadata: {name: db, namespace: shop}
spec:
  clusterIP: None
  selector: {app: db}
  ports: [{name: pg, port: 5432, protocol: TCP}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  serviceName: db
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres, ports: [{name: pg, containerPort: 5432}]}]
`

// testHeadlessAcrossMembers exports a headless StatefulSet Service over the
// flat network from member-1 and member-2 and resolves, in member-3's DNS
// server, every name KEP-1645 gives it: the Service name (every ready Pod of
// both members), each Pod's <hostname>.<clusterid> name and the SRV records;
// and, from the same server, the member's own cluster.local names. The
// exporter's own server (exporterServer, member-1's) answers the same
// cluster-set names: an exporter is in its own clusterset.
func testHeadlessAcrossMembers(c *e2ecli.CLI, server, exporterServer string) {
	t := c.T
	manifest := filepath.Join(t.TempDir(), "db.yaml")
	if err := os.WriteFile(manifest, []byte(statefulDB), 0o644); err != nil {
		t.Fatal(err)
	}
	kubeconfig := "--kubeconfig=" + filepath.Join(c.Dir, "kubeconfig")
	for _, m := range []string{"member-1", "member-2"} {
		c.Kubectl("--context", m, "apply", "-f", manifest)
		c.MustRun("service", "export", "db", "-n", "shop", "--flat-network", "--context", m, kubeconfig)
	}

	var hosts map[string]string // <hostname>.<cluster> -> address
	framework.Eventually(t, 90*time.Second, func() error {
		all, err := lookupA(server, "db.shop.svc.clusterset.local.")
		if err != nil {
			return fmt.Errorf("db.shop.svc.clusterset.local: %w", err)
		}
		if len(all) != 4 {
			return fmt.Errorf("db.shop.svc.clusterset.local answers %v, want the 4 Pods of both members", all)
		}
		hosts = map[string]string{}
		for _, m := range []string{"member-1", "member-2"} {
			for _, h := range []string{"db-0", "db-1"} {
				name := h + "." + m + ".db.shop.svc.clusterset.local."
				ips, err := lookupA(server, name)
				if err != nil || len(ips) != 1 {
					return fmt.Errorf("%s answers %v, want one Pod (%w)", name, ips, err)
				}
				hosts[h+"."+m] = ips[0]
			}
		}
		return nil
	})
	framework.Eventually(t, 30*time.Second, func() error {
		all, err := lookupA(exporterServer, "db.shop.svc.clusterset.local.")
		if err != nil || len(all) != 4 {
			return fmt.Errorf("the exporter member-1's server answers db.shop.svc.clusterset.local with %v (%w), want the 4 Pods", all, err)
		}
		own, err := lookupA(exporterServer, "db-0.member-1.db.shop.svc.clusterset.local.")
		if err != nil || len(own) != 1 || own[0] != hosts["db-0.member-1"] {
			return fmt.Errorf("the exporter member-1's server answers db-0.member-1 with %v (%w), want %s", own, err, hosts["db-0.member-1"])
		}
		return nil
	})
	seen := map[string]bool{}
	for _, ip := range hosts {
		if seen[ip] {
			t.Errorf("two hostnames share %s: %v", ip, hosts)
		}
		seen[ip] = true
	}

	// SRV of the named port: one record per Pod, each target a per-Pod name.
	r := exchange(c, server, "_pg._tcp.db.shop.svc.clusterset.local.", dns.TypeSRV)
	targets := map[string]bool{}
	for _, rr := range r.Answer {
		if srv, ok := rr.(*dns.SRV); ok && srv.Port == 5432 {
			targets[strings.TrimSuffix(srv.Target, ".db.shop.svc.clusterset.local.")] = true
		}
	}
	for k := range hosts {
		if !targets[k] {
			t.Errorf("SRV answer lacks %s: %v", k, r.Answer)
		}
	}
	// The version of the multicluster DNS schema.
	if r := exchange(c, server, "dns-version.clusterset.local.", dns.TypeTXT); len(r.Answer) != 1 || !strings.Contains(r.Answer[0].String(), `"1.0.0"`) {
		t.Errorf("dns-version.clusterset.local TXT: %v", r.Answer)
	}
	// One resolver for a Pod: the member's own Services too.
	if ips, err := lookupA(server, "kubernetes.default.svc.cluster.local."); err != nil || len(ips) != 1 {
		t.Errorf("member-3's DNS server answers kubernetes.default.svc.cluster.local with %v %v, want member-3's kubernetes Service", ips, err)
	}
	// An unknown name under cluster.local is NXDOMAIN, not a failure.
	if r := exchange(c, server, "nothing.shop.svc.cluster.local.", dns.TypeA); r.Rcode != dns.RcodeNameError {
		t.Errorf("nothing.shop.svc.cluster.local: %s, want NXDOMAIN", dns.RcodeToString[r.Rcode])
	}

	// A Pod gone is a name gone, everywhere.
	c.Kubectl("--context", "member-2", "-n", "shop", "scale", "statefulset", "db", "--replicas=1")
	framework.Eventually(t, 60*time.Second, func() error {
		if ips, err := lookupA(server, "db-1.member-2.db.shop.svc.clusterset.local."); err == nil {
			return fmt.Errorf("db-1.member-2 still answers %v", ips)
		}
		if all, err := lookupA(server, "db.shop.svc.clusterset.local."); err != nil || len(all) != 3 {
			return fmt.Errorf("db.shop.svc.clusterset.local answers %v, want 3 Pods (%w)", all, err)
		}
		return nil
	})
}

// exchange asks server one question over UDP and fails the test on a transport error.
func exchange(c *e2ecli.CLI, server, name string, qtype uint16) *dns.Msg {
	c.T.Helper()
	m := new(dns.Msg)
	m.SetQuestion(name, qtype)
	r, _, err := (&dns.Client{Timeout: 2 * time.Second}).Exchange(m, server)
	if err != nil {
		c.T.Fatalf("%s %s: %v", name, dns.TypeToString[qtype], err)
	}
	return r
}
