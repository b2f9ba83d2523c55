package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/miekg/dns"

	"antreaplus.io/antreaplus/pkg/sandbox"
)

// sandboxVM is a VM the sandbox plays.
type sandboxVM = sandbox.AgentVM

// names are the names of the federated Service web.demo-ext outside the
// federation: the federation's, per region, per zone.
type names struct{ fed, r1, r2, z1, z2, z3 string }

func (d *demo) extNames() (names, string, error) {
	st, err := d.state()
	if err != nil {
		return names{}, "", err
	}
	if st.ExternalDNS == nil {
		return names{}, "", fmt.Errorf("the sandbox runs no ExternalDNS")
	}
	dom := st.ExternalDNS.Domain
	base := "web.demo-ext." + federationID + ".svc."
	return names{fed: base + dom, r1: base + "sandbox." + dom, r2: base + "sandbox-2." + dom,
		z1: base + "member-1.sandbox." + dom, z2: base + "member-2.sandbox." + dom, z3: base + "member-3.sandbox-2." + dom}, st.ExternalDNS.Server.Endpoint(), nil
}

// waitAnswer waits until the external DNS server answers name with want
// ("NOERROR 203.0.113.2", "NXDOMAIN").
func (d *demo) waitAnswer(name, want string, timeout time.Duration) error {
	return d.wait(name+" answering "+want, timeout, func() error {
		if got := d.ask(d.ext, name, dns.TypeA).String(); got != want {
			return errNot("%s", got)
		}
		return nil
	})
}

// showAnswer prints the answer for name, which must be want.
func (d *demo) showAnswer(name, want, note string) error {
	got := d.ask(d.ext, name, dns.TypeA).String()
	d.printf("  dig %-66s -> %s   (%s)\n", name, got, note)
	if got != want {
		return fmt.Errorf("%s answers %q, want %q", name, got, want)
	}
	return nil
}

func (d *demo) externalDNS() error {
	n, ext, err := d.extNames()
	if err != nil {
		return err
	}
	d.ext = ext
	d.printf("  member-1's ClusterMembership asks its leader for the records (antreaplus sandbox up --external-dns set it):\n")
	d.printf("    spec.externalDNS: %s\n", d.jsonpath("member-1", "get", "clustermembership", "cluster.clusterset.k8s.io", "-o", "jsonpath={.spec.externalDNS}"))
	d.printf("  ExternalDNS (--source=crd --provider=coredns --registry=txt) publishes member-1's DNSEndpoints into an etcd;\n")
	d.printf("  our CoreDNS build (its etcd plugin) answers the domain from it on %s\n", ext)
	d.printf("  'web' in namespace demo-ext: a LoadBalancer Service exported from member-2 (region sandbox, zone member-2)\n")
	d.printf("  and from member-3 (region sandbox-2, zone member-3). No load-balancer controller runs here: the demo writes\n")
	d.printf("  each Service's status.loadBalancer.ingress itself (kubectl patch --subresource=status), as a cloud's would:\n")
	for _, m := range [][2]string{{"member-2", "203.0.113.2"}, {"member-3", "203.0.113.3"}} {
		_, _ = d.k("--context", m[0], "create", "namespace", "demo-ext") // there from an earlier run
		if err := d.applyText(m[0], webService("demo-ext", "LoadBalancer", 0)); err != nil {
			return err
		}
		if err := d.loadBalance(m[0], "demo-ext", m[1]); err != nil {
			return err
		}
		d.printf("    %s: ingress %s; antreaplus service export web -n demo-ext --context %s\n", m[0], m[1], m[0])
		if err := d.show("      ", false, true, d.antreaplus, "service", "export", "web", "-n", "demo-ext", "--context", m[0]); err != nil {
			return err
		}
	}
	start := time.Now()
	if err := d.waitAnswer(n.fed, "NOERROR 203.0.113.2 203.0.113.3", time.Minute); err != nil {
		return err
	}
	if err := d.waitAnswer(n.z3, "NOERROR 203.0.113.3", 30*time.Second); err != nil {
		return err
	}
	d.printf("  published in %s after the exports (ExternalDNS syncs on events, at most every 5 s)\n", seconds(time.Since(start)))
	d.printf("  the DNSEndpoint member-1's leader wrote (kubectl --context member-1 -n antreaplus-system get dnsendpoints):\n")
	if err := d.showK("    ", "--context", "member-1", "-n", "antreaplus-system", "get", "dnsendpoints.externaldns.k8s.io", "web.demo-ext",
		"-o", `jsonpath={range .spec.endpoints[*]}{.dnsName}{" "}{.recordType}{" "}{.targets}{" ttl "}{.recordTTL}{"\n"}{end}`); err != nil {
		return err
	}
	d.printf("  (the per-cluster names are the SRV records' targets; ExternalDNS's coredns provider publishes A, AAAA and\n")
	d.printf("   CNAME records, not SRV: docs/external-dns.md)\n")
	for _, c := range []struct{ name, want, note string }{
		{n.fed, "NOERROR 203.0.113.2 203.0.113.3", "the federation"},
		{n.r1, "NOERROR 203.0.113.2", "region sandbox"},
		{n.r2, "NOERROR 203.0.113.3", "region sandbox-2"},
		{n.z2, "NOERROR 203.0.113.2", "zone member-2 of sandbox"},
		{n.z3, "NOERROR 203.0.113.3", "zone member-3 of sandbox-2"},
		{n.z1, "NXDOMAIN", "no exporter in zone member-1: no name, no fallback"},
		{"web.shop." + federationID + ".svc." + strings.TrimPrefix(n.fed, "web.demo-ext."+federationID+".svc."), "NOERROR 203.0.113.20",
			"shop/web: member-2's load balancer; member-1's NodePort nodes have no ExternalIP"},
	} {
		if err := d.showAnswer(c.name, c.want, c.note); err != nil {
			return err
		}
	}
	return nil
}

func (d *demo) cutMember3() error {
	n, _, err := d.extNames()
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(filepath.Join(d.sb.Dir(), "kwok", "clusters", "member-3", "pids", "kube-apiserver.pid"))
	if err != nil {
		return err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		return err
	}
	start := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return err
	}
	if err := d.waitAnswer(n.fed, "NOERROR 203.0.113.2", 90*time.Second); err != nil {
		return err
	}
	took := time.Since(start)
	if err := d.waitAnswer(n.r2, "NXDOMAIN", 15*time.Second); err != nil {
		return err
	}
	d.printf("  member-3 left the names %s after its API server died:\n", seconds(took))
	for _, c := range [][3]string{{n.fed, "NOERROR 203.0.113.2", "the federation: member-2 alone"},
		{n.r1, "NOERROR 203.0.113.2", "region sandbox, untouched"}, {n.r2, "NXDOMAIN", "region sandbox-2: no exporter left"},
		{n.z3, "NXDOMAIN", "zone member-3"}} {
		if err := d.showAnswer(c[0], c[1], c[2]); err != nil {
			return err
		}
	}
	return nil
}

func (d *demo) member3Back() error {
	n, _, err := d.extNames()
	if err != nil {
		return err
	}
	start := time.Now()
	if _, err := d.ap(append([]string{"sandbox", "up"}, d.upArgs...)...); err != nil {
		return fmt.Errorf("sandbox up did not restart member-3: %w", err)
	}
	upTook := time.Since(start)
	if err := d.waitAnswer(n.fed, "NOERROR 203.0.113.2 203.0.113.3", 90*time.Second); err != nil {
		return err
	}
	took := time.Since(start)
	if err := d.waitAnswer(n.r2, "NOERROR 203.0.113.3", 15*time.Second); err != nil {
		return err
	}
	d.printf("  member-3 was back in the names %s after sandbox up began restarting it (sandbox up itself took %s):\n", seconds(took), seconds(upTook))
	for _, c := range [][3]string{{n.fed, "NOERROR 203.0.113.2 203.0.113.3", "the federation"},
		{n.r2, "NOERROR 203.0.113.3", "region sandbox-2"}, {n.z3, "NOERROR 203.0.113.3", "zone member-3 of sandbox-2"}} {
		if err := d.showAnswer(c[0], c[1], c[2]); err != nil {
			return err
		}
	}
	return nil
}
