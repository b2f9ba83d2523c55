package main

import (
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/miekg/dns"
)

// federationID is the sandbox's federation.
const federationID = "sandbox"

// sections are the demo's parts, in order.
func (d *demo) sections() []section {
	return []section{
		{title: "antreaplus sandbox status", run: d.status},
		{title: "kubectl --context member-2 get nodes -o wide", run: func() error {
			return d.showK("", "--context", "member-2", "get", "nodes", "-o", "wide")
		}},
		{title: "Each cluster has its own Pod and Service CIDRs", run: d.cidrs},
		{title: "The AntreaPlus and Multi-Cluster Services CRDs in member-1", run: func() error {
			return d.showK("", "--context", "member-1", "get", "crd", "-o", "custom-columns=NAME:.metadata.name,KIND:.spec.names.kind,SCOPE:.spec.scope")
		}},
		{title: "The API server refuses bad objects with a clear message", run: d.refusals},
		{title: "The federation: every member is led by one supervisor (a Lease held in the member)", run: d.federation},
		{title: "A federated Service: 'web' exported as a NodePort from member-1 and as a LoadBalancer from member-2", run: d.federatedService},
		{title: "antreaplus service list", run: func() error { return d.show("", false, true, d.antreaplus, "service", "list") }},
		{title: "member-3 exports nothing, yet its DNS server resolves the federated Service", run: d.memberDNS},
		{title: "Federated names outside the federation: ExternalDNS publishes them, a DNS server outside the members answers", externalDNS: true, run: d.externalDNS},
		{title: "Cut member-3 off: kill -9 its API server; the federation marks it unreachable after 15 s (--unreachable-grace)", externalDNS: true, run: d.cutMember3},
		{title: "member-3 comes back (sandbox up restarts its API server) and returns to the names", externalDNS: true, run: d.member3Back},
		{title: "The local cloud: AWS's account and selector in member-1's namespace cloud-demo (Azure's are in member-2's)", cloud: true, run: d.localCloud},
		{title: "An Antrea NetworkPolicy on the agentless web VMs of AWS becomes security groups in the cloud", cloud: true, run: d.agentless},
		{title: "Agented VMs: each runs the VM agent (nftables); a policy allows dev-build-1 and blocks dev-build-3", cloud: true, vms: true, run: d.agented},
		{title: "Federated NetworkPolicy: egress", cloud: true, vms: true, run: d.federatedEgress},
		{title: "Federated NetworkPolicy: ingress", cloud: true, vms: true, run: d.federatedIngress},
		{title: "Networks: overlapping and NAT", cloud: true, vms: true, run: d.networks},
		{title: "Cloud-native services: ingress", cloud: true, vms: true, run: d.nativeServices},
		{title: "Trace", cloud: true, vms: true, run: d.traceSection},
		{title: "Tenancy: three tenants in member-1, each with an AWS account of its own, and who manages which", cloud: true, tenancy: true, run: d.tenancy},
		{title: "kill -9 the federation manager that leads member-1", run: d.failover},
		{title: "The killed manager comes back (sandbox up restarts it) and takes its share back by hand-over", run: d.handBack},
	}
}

func (d *demo) status() error {
	return d.show("", false, true, d.antreaplus, "sandbox", "status")
}

func (d *demo) contexts() ([]string, error) {
	out, err := d.k("config", "get-contexts", "-o", "name")
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

func (d *demo) cidrs() error {
	ctxs, err := d.contexts()
	if err != nil {
		return err
	}
	for _, c := range ctxs {
		_, _ = d.k("--context", c, "create", "service", "clusterip", "demo", "--tcp=80:80") // there from an earlier run
		pods := d.jsonpath(c, "get", "nodes", "-o", "jsonpath={.items[*].spec.podCIDR}")
		ip := d.jsonpath(c, "get", "service", "demo", "-o", "jsonpath={.spec.clusterIP}")
		if pods == "" || ip == "" {
			return fmt.Errorf("%s: no Pod CIDR or ClusterIP", c)
		}
		d.printf("%-10s node Pod CIDRs: %-40s Service demo ClusterIP: %s\n", c, pods, ip)
	}
	return nil
}

func (d *demo) refusals() error {
	args := []string{"--context", "member-1", "patch", "clustermembership", "cluster.clusterset.k8s.io", "--type", "merge", "-p", `{"spec":{"clusterID":"renamed"}}`}
	d.printf("  kubectl patch clustermembership cluster.clusterset.k8s.io --type merge -p '{\"spec\":{\"clusterID\":\"renamed\"}}'\n")
	out, err := d.command(d.kubectl, args...).CombinedOutput()
	d.indent("  ", string(out))
	if err == nil {
		return fmt.Errorf("the API server accepted a new clusterID")
	}
	raw, rerr := os.ReadFile(d.file("bad-cidr.yaml"))
	if rerr != nil {
		return rerr
	}
	d.indent("  ", string(raw))
	out, err = d.command(d.kubectl, "--context", "member-1", "apply", "-f", d.file("bad-cidr.yaml")).CombinedOutput()
	d.indent("  ", string(out))
	if err == nil {
		return fmt.Errorf("the API server accepted the CIDR 10.0.0.0/33")
	}
	return nil
}

// leaders maps every member to its leader (its Lease's holder).
func (d *demo) leaders() (map[string]string, []string, error) {
	ctxs, err := d.contexts()
	if err != nil {
		return nil, nil, err
	}
	m := map[string]string{}
	for _, c := range ctxs {
		m[c] = d.jsonpath(c, "-n", "antreaplus-system", "get", "lease", "antreaplus-federation-leader", "-o", "jsonpath={.spec.holderIdentity}")
	}
	return m, ctxs, nil
}

func (d *demo) printLeaders() error {
	m, ctxs, err := d.leaders()
	if err != nil {
		return err
	}
	for _, c := range ctxs {
		d.printf("  %-10s led by %s\n", c, m[c])
	}
	return nil
}

// waitLed waits until every member is led, by someone other than not.
func (d *demo) waitLed(not string, timeout time.Duration) error {
	return d.wait("every member led", timeout, func() error {
		m, _, err := d.leaders()
		if err != nil {
			return err
		}
		for c, h := range m {
			if h == "" || h == not {
				return errNot("%s led by %q", c, h)
			}
		}
		return nil
	})
}

func (d *demo) federation() error {
	if err := d.waitLed("", 2*time.Minute); err != nil {
		return err
	}
	// The preferred supervisors take their share after the hand-over hold-down (10 s).
	_ = d.wait("member-2 leading its share", 30*time.Second, func() error {
		m, _, err := d.leaders()
		if err != nil {
			return err
		}
		for _, h := range m {
			if h == "member-2" {
				return nil
			}
		}
		return errNot("member-2 leads nothing yet")
	})
	if err := d.printLeaders(); err != nil {
		return err
	}
	return d.show("", false, true, d.antreaplus, "federation", "status")
}

// webService is the Service web of type typ in namespace ns.
func webService(ns, typ string, nodePort int) string {
	np := ""
	if nodePort != 0 {
		np = ", nodePort: " + strconv.Itoa(nodePort)
	}
	return fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: %s}\nspec:\n  type: %s\n  selector: {app: web}\n  ports:\n  - {name: http, protocol: TCP, port: 80, targetPort: 8080%s}\n", ns, typ, np)
}

// loadBalance writes the ingress IP a cloud's load-balancer controller
// would (none runs here).
func (d *demo) loadBalance(member, ns, ip string) error {
	_, err := d.k("--context", member, "-n", ns, "patch", "service", "web", "--subresource=status", "--type=merge",
		"-p", fmt.Sprintf(`{"status":{"loadBalancer":{"ingress":[{"ip":%q}]}}}`, ip))
	return err
}

func (d *demo) federatedService() error {
	for _, c := range []string{"member-1", "member-2", "member-3"} {
		_, _ = d.k("--context", c, "create", "namespace", "shop") // there from an earlier run
	}
	if err := d.applyText("member-1", webService("shop", "NodePort", 31080)); err != nil {
		return err
	}
	if err := d.applyText("member-2", webService("shop", "LoadBalancer", 0)); err != nil {
		return err
	}
	if err := d.loadBalance("member-2", "shop", "203.0.113.20"); err != nil {
		return err
	}
	for _, c := range []string{"member-1", "member-2"} {
		if err := d.show("  ", true, true, d.antreaplus, "service", "export", "web", "-n", "shop", "--context", c); err != nil {
			return err
		}
	}
	dns3, err := d.service("member-3", "dns")
	if err != nil {
		return err
	}
	d.dns3 = dns3.Address
	return d.wait("web.shop.svc.clusterset.local in member-3's DNS", time.Minute, func() error {
		if a := d.ask(d.dns3, "web.shop.svc.clusterset.local", dns.TypeA); len(a.answers) == 0 {
			return errNot("%s", a)
		}
		return nil
	})
}

func (d *demo) memberDNS() error {
	d.printf("  (member-3's DNS server: %s)\n", d.dns3)
	for _, q := range []string{"web.shop.svc.clusterset.local", "web.shop." + federationID + ".svc.cluster.local",
		"web.shop.member-1." + federationID + ".svc.cluster.local", "web.shop.member-2." + federationID + ".svc.cluster.local"} {
		a := d.ask(d.dns3, q, dns.TypeA)
		d.printf("  dig %-50s -> %s\n", q, strings.Join(a.answers, " "))
		if len(a.answers) == 0 {
			return fmt.Errorf("%s: %s", q, a)
		}
	}
	srv := "_http._tcp.web.shop.member-1." + federationID + ".svc.cluster.local"
	a := d.ask(d.dns3, srv, dns.TypeSRV)
	d.printf("  dig %-50s -> %s\n", "SRV "+srv, strings.Join(a.answers, " "))
	if !slices.ContainsFunc(a.answers, func(s string) bool { return strings.Contains(s, "31080") }) {
		return fmt.Errorf("SRV %s: %s, want port 31080", srv, a)
	}
	d.printf("  (clusterset.local: the ServiceImport's cluster-set IP; the federation names: what each\n")
	d.printf("   exporter offers from outside: member-1's nodes on NodePort 31080, member-2's load balancer)\n")
	a = d.ask(d.dns3, "kubernetes.default.svc.cluster.local", dns.TypeA)
	d.printf("  dig %-50s -> %s\n", "kubernetes.default.svc.cluster.local", strings.Join(a.answers, " "))
	d.printf("  (the same server is member-3's whole resolver: its own Services under cluster.local too)\n")
	return nil
}

// answer is what a DNS server said.
type answer struct {
	rcode   string
	answers []string // A, AAAA: the address; SRV: "port target"
	err     error
}

func (a answer) String() string {
	if a.err != nil {
		return "NO-ANSWER (" + a.err.Error() + ")"
	}
	sorted := slices.Clone(a.answers)
	slices.Sort(sorted)
	return strings.TrimSpace(a.rcode + " " + strings.Join(sorted, " "))
}

// ask sends one real query to server.
func (d *demo) ask(server, name string, qtype uint16) answer {
	return exchange(server, name, qtype, func(c *dns.Client, m *dns.Msg) (*dns.Msg, error) {
		r, _, err := c.ExchangeContext(d.ctx, m, server)
		return r, err
	})
}

func exchange(_, name string, qtype uint16, do func(*dns.Client, *dns.Msg) (*dns.Msg, error)) answer {
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	r, err := do(&dns.Client{Timeout: 2 * time.Second}, m)
	if err != nil {
		return answer{err: err}
	}
	a := answer{rcode: dns.RcodeToString[r.Rcode]}
	for _, rr := range r.Answer {
		switch v := rr.(type) {
		case *dns.A:
			a.answers = append(a.answers, v.A.String())
		case *dns.AAAA:
			a.answers = append(a.answers, v.AAAA.String())
		case *dns.SRV:
			a.answers = append(a.answers, strconv.Itoa(int(v.Port))+" "+v.Target)
		}
	}
	return a
}

func (d *demo) failover() error {
	victim := d.jsonpath("member-1", "-n", "antreaplus-system", "get", "lease", "antreaplus-federation-leader", "-o", "jsonpath={.spec.holderIdentity}")
	if victim == "" {
		return fmt.Errorf("member-1 has no leader")
	}
	m, ctxs, err := d.leaders()
	if err != nil {
		return err
	}
	d.printf("  %s's manager leads:\n", victim)
	for _, c := range ctxs {
		if m[c] == victim {
			d.printf("  %-10s led by %s\n", c, victim)
		}
	}
	s, err := d.service(victim, "federation-manager")
	if err != nil {
		return err
	}
	if s.Pid == 0 {
		return fmt.Errorf("the federation manager of %s does not run", victim)
	}
	start := time.Now()
	if err := syscall.Kill(s.Pid, syscall.SIGKILL); err != nil {
		return err
	}
	if err := d.waitLed(victim, 2*time.Minute); err != nil {
		return err
	}
	d.printf("\nEvery member %s led was taken over in %s:\n", victim, seconds(time.Since(start)))
	d.victim = victim
	return d.printLeaders()
}

func (d *demo) handBack() error {
	if _, err := d.ap(append([]string{"sandbox", "up"}, d.upArgs...)...); err != nil {
		return err
	}
	err := d.wait(d.victim+" leading again", time.Minute, func() error {
		m, _, err := d.leaders()
		if err != nil {
			return err
		}
		for _, h := range m {
			if h == d.victim {
				return nil
			}
		}
		return errNot("%s leads nothing yet", d.victim)
	})
	if err != nil {
		return err
	}
	return d.printLeaders()
}

// next prints what to try by hand.
func (d *demo) next() {
	host, port, _ := net.SplitHostPort(d.dns3)
	d.printf("\nTry it yourself:\n  export KUBECONFIG=%s\n", d.kubeconfig)
	d.printf("  %s --context member-3 get nodes,crd\n  %s sandbox status\n  %s federation status\n", d.kubectl, d.antreaplus, d.antreaplus)
	d.printf("  dig @%s -p %s web.shop.svc.clusterset.local\n", host, port)
	if !d.o.fast {
		d.printf("  %s --context member-1 -n cloud-demo get virtualmachines,externalentities,networkpolicies.crd.antrea.io\n", d.kubectl)
		d.printf("  %s policy list\n  %s tenant list --context member-1\n", d.antreaplus, d.antreaplus)
	}
	d.printf("  %s console --open    # the web console of every member (docs/console.md)\n", d.antreaplus)
	d.printf("Logs: %s/ (managers/, members/, cloud/, external-dns/)\nStop everything with:\n  %s sandbox down%s\n",
		d.sb.Dir(), d.antreaplus, map[bool]string{true: " --dir " + d.o.dir}[d.o.dir != ""])
}
