package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/miekg/dns"

	"antreaplus.io/antreaplus/internal/netns"
)

const cloudNS = "cloud-demo"

func (d *demo) localCloud() error {
	err := d.wait("member-1's ExternalEntities", time.Minute, func() error {
		out, err := d.k("--context", "member-1", "-n", cloudNS, "get", "externalentities", "-o", "name")
		if n := len(strings.Fields(out)); err != nil || n < 8 {
			return errNot("%d entities (%v)", n, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := d.showK("", "--context", "member-1", "-n", cloudNS, "get", "cloudprovideraccounts,cloudentityselectors"); err != nil {
		return err
	}
	d.printf("\n")
	if err := d.showK("", "--context", "member-1", "-n", cloudNS, "get", "virtualmachines", "-l", "cloud.antreaplus.io/account-name=aws-emulator"); err != nil {
		return err
	}
	d.printf("\n  each VM network interface is an Antrea ExternalEntity, labelled with its cloud tags:\n")
	return d.showK("", "--context", "member-1", "-n", cloudNS, "get", "externalentities", "-l", "tag.cloud.antreaplus.io/role=web",
		"-o", "custom-columns=NAME:.metadata.name,ENDPOINTS:.spec.endpoints[*].ip,ENFORCED-BY:.spec.externalNode")
}

// realized waits until an Antrea NetworkPolicy's status says its
// generation is realised.
func (d *demo) realized(member, name string) error {
	return d.wait(name+" realised", time.Minute, func() error {
		st := d.jsonpath(member, "-n", cloudNS, "get", "networkpolicies.crd.antrea.io", name,
			"-o", "jsonpath={.metadata.generation}/{.status.observedGeneration}/{.status.phase}")
		gen, _, _ := strings.Cut(st, "/")
		if st != gen+"/"+gen+"/Realized" {
			return errNot("%s", st)
		}
		return nil
	})
}

func (d *demo) agentless() error {
	if err := d.apply("member-1", "web-ingress.yaml", true); err != nil {
		return err
	}
	if err := d.realized("member-1", "web-ingress"); err != nil {
		return err
	}
	d.printf("\n")
	if err := d.showK("", "--context", "member-1", "-n", cloudNS, "get", "networkpolicies.crd.antrea.io", "web-ingress",
		"-o", "custom-columns=POLICY:.metadata.name,PHASE:.status.phase,REALIZED:.status.currentNodesRealized,DESIRED:.status.desiredNodesRealized,GENERATION:.status.observedGeneration"); err != nil {
		return err
	}
	d.printf("\n  the emulator's EC2 API (DescribeSecurityGroups, through aws-sdk-go-v2) now holds:\n")
	groups, err := d.securityGroups()
	if err != nil {
		return err
	}
	if len(groups) == 0 {
		return fmt.Errorf("no security group of ours in the cloud")
	}
	for _, g := range groups {
		d.printf("  %s\n", g)
	}
	ip1 := d.entityIP("aws-emulator", "dev-build-1")
	ip2 := d.entityIP("aws-emulator", "dev-build-2")
	d.printf("  -> dev-build-1 (%s) may reach the web VMs on 443; dev-build-2 (%s) and everyone else are blocked\n", ip1, ip2)
	return nil
}

// entityIP is the first address of a VM's ExternalEntity in member-1.
func (d *demo) entityIP(account, vm string) string {
	return d.jsonpath("member-1", "-n", cloudNS, "get", "externalentities",
		"-l", "tag.cloud.antreaplus.io/Name="+vm+",cloud.antreaplus.io/account-name="+account, "-o", "jsonpath={.items[0].spec.endpoints[0].ip}")
}

// awsEndpoint is the emulator's AWS endpoint and credentials, from its log.
var awsEndpoint = regexp.MustCompile(`^AWS .* endpoint (http\S+) .*accessKeyID (\S+) *secretAccessKey (\S+)`)

// awsConfig is the emulator's AWS endpoint and credentials, from its log.
func (d *demo) awsConfig() (aws.Config, error) {
	f, err := os.Open(filepath.Join(d.sb.Dir(), "cloud", "cloud-emulator.log"))
	if err != nil {
		return aws.Config{}, err
	}
	defer func() { _ = f.Close() }()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if m := awsEndpoint.FindStringSubmatch(sc.Text()); m != nil {
			return aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(m[1]),
				Credentials: credentials.NewStaticCredentialsProvider(m[2], m[3], "")}, nil
		}
	}
	return aws.Config{}, fmt.Errorf("the emulator's log names no AWS endpoint")
}

// securityGroups describes our groups in the emulator, one line each.
func (d *demo) securityGroups() ([]string, error) {
	cfg, err := d.awsConfig()
	if err != nil {
		return nil, err
	}
	client := ec2.NewFromConfig(cfg)
	ctx, cancel := context.WithTimeout(d.ctx, 10*time.Second)
	defer cancel()
	out, err := client.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{})
	if err != nil {
		return nil, fmt.Errorf("DescribeSecurityGroups: %w", err)
	}
	var lines []string
	for _, g := range out.SecurityGroups {
		name := aws.ToString(g.GroupName)
		if !strings.HasPrefix(name, "antreaplus") {
			continue
		}
		var ports, from []string
		for _, p := range g.IpPermissions {
			ports = append(ports, fmt.Sprintf("%s/%d", aws.ToString(p.IpProtocol), aws.ToInt32(p.FromPort)))
			for _, r := range p.IpRanges {
				from = append(from, aws.ToString(r.CidrIp))
			}
			for _, r := range p.Ipv6Ranges {
				from = append(from, aws.ToString(r.CidrIpv6))
			}
		}
		slices.Sort(ports)
		lines = append(lines, fmt.Sprintf("%s: inbound %s from %s only", name, strings.Join(slices.Compact(ports), " "), strings.Join(from, " ")))
	}
	slices.Sort(lines)
	return lines, nil
}

// probes shows real TCP connections from a VM.
func (d *demo) probes(from string, to ...string) error {
	for _, t := range to {
		if err := d.show("    ", false, true, d.antreaplus, "sandbox", "probe", "--from", from, "--to", t); err != nil {
			return err
		}
	}
	return nil
}

// waitProbe waits until a probe's outcome is expect (connected, blocked).
func (d *demo) waitProbe(from, to, expect string) error {
	return d.wait(fmt.Sprintf("%s -> %s %s", from, to, expect), 45*time.Second, func() error {
		_, err := d.ap("sandbox", "probe", "--from", from, "--to", to, "--expect", expect, "--timeout", "1s")
		return err
	})
}

func (d *demo) agented() error {
	d.printf("  before any policy, real TCP connections from the VMs' namespaces:\n")
	for _, from := range []string{"dev-build-1", "dev-build-3"} {
		if err := d.probes(from, "dev-build-2:8080"); err != nil {
			return err
		}
	}
	if err := d.apply("member-1", "build-2-ingress.yaml", true); err != nil {
		return err
	}
	if err := d.waitProbe("dev-build-3", "dev-build-2:8080", "blocked"); err != nil {
		return err
	}
	if err := d.waitProbe("dev-build-1", "dev-build-2:8080", "connected"); err != nil {
		return err
	}
	d.printf("  after (enforced by dev-build-2's agent in nftables):\n")
	for _, from := range []string{"dev-build-1", "dev-build-3"} {
		if err := d.probes(from, "dev-build-2:8080"); err != nil {
			return err
		}
	}
	return d.showK("  ", "--context", "member-1", "-n", cloudNS, "get", "networkpolicies.crd.antrea.io", "build-2-ingress",
		"-o", "custom-columns=POLICY:.metadata.name,PHASE:.status.phase,REALIZED:.status.currentNodesRealized,DESIRED:.status.desiredNodesRealized")
}

// derived shows the Antrea policy and Groups a federated policy of member-2 became.
func (d *demo) derived(name string) error {
	d.printf("  the Antrea NetworkPolicy fnp-%s the member controller derived from it (remote peers as ipBlocks of Groups):\n", name)
	out, err := d.k("--context", "member-2", "-n", cloudNS, "get", "networkpolicies.crd.antrea.io", "fnp-"+name, "-o", "yaml")
	if err != nil {
		return err
	}
	if i := strings.Index(out, "\nspec:"); i >= 0 {
		out = out[i+1:]
		if j := strings.Index(out, "\nstatus:"); j >= 0 {
			out = out[:j]
		}
	}
	d.indent("    ", out)
	return d.showK("    ", "--context", "member-2", "-n", cloudNS, "get", "groups.crd.antrea.io", "-l", "policy.antreaplus.io/federated-policy="+name,
		"-o", "custom-columns=GROUP:.metadata.name,IPBLOCKS:.spec.ipBlocks[*].cidr")
}

// policyCLI shows 'antreaplus policy ARGS' without its progress line.
func (d *demo) policyCLI(args ...string) error {
	d.printf("  antreaplus policy %s\n", strings.Join(args, " "))
	out, err := d.ap(append([]string{"policy"}, args...)...)
	d.indent("  ", out)
	return err
}

// vmDig asks, from a VM's namespace, its own resolver (the agent's DNS
// forwarder) for name, until it answers.
func (d *demo) vmDig(vm, name string) error {
	st, err := d.state()
	if err != nil {
		return err
	}
	if st.Cloud == nil {
		return fmt.Errorf("the sandbox runs no cloud")
	}
	i := slices.IndexFunc(st.Cloud.VMs, func(v sandboxVM) bool { return v.Name == vm })
	if i < 0 {
		return fmt.Errorf("no VM %s played", vm)
	}
	ns := st.Cloud.VMs[i].NetNS
	server := resolverOf(ns)
	d.printf("    ip netns exec %s dig +short %s   (its resolver: %s)\n", ns, name, server)
	var got answer
	err = d.wait(name+" from "+vm, time.Minute, func() error {
		got = d.askIn(ns, server, name)
		if len(got.answers) == 0 {
			return errNot("%s", got)
		}
		return nil
	})
	d.printf("    %s\n", strings.Join(got.answers, " "))
	return err
}

// resolverOf is the nameserver of a namespace's resolv.conf (what `ip
// netns exec` gives its commands); the VM agent's forwarder by default.
func resolverOf(ns string) string {
	raw, err := os.ReadFile(filepath.Join("/etc/netns", ns, "resolv.conf"))
	if err == nil {
		for _, l := range strings.Split(string(raw), "\n") {
			if f := strings.Fields(l); len(f) == 2 && f[0] == "nameserver" {
				return net.JoinHostPort(f[1], "53")
			}
		}
	}
	return "127.0.0.153:53"
}

// askIn sends a query from inside a network namespace.
func (d *demo) askIn(ns, server, name string) answer {
	return exchange(server, name, dns.TypeA, func(c *dns.Client, m *dns.Msg) (*dns.Msg, error) {
		h, err := netns.Open(ns)
		if err != nil {
			return nil, err
		}
		defer func() { _ = h.Close() }()
		ctx, cancel := context.WithTimeout(d.ctx, 2*time.Second)
		defer cancel()
		conn, err := h.Dial(ctx, "udp", server)
		if err != nil {
			return nil, err
		}
		defer func() { _ = conn.Close() }()
		r, _, err := c.ExchangeWithConnContext(ctx, m, &dns.Conn{Conn: conn})
		return r, err
	})
}

func (d *demo) federatedEgress() error {
	dev3 := d.entityIP("aws-emulator", "dev-build-3")
	vpc := d.jsonpath("member-1", "-n", cloudNS, "get", "externalentities",
		"-l", "tag.cloud.antreaplus.io/Name=dev-build-3,cloud.antreaplus.io/account-name=aws-emulator",
		"-o", `jsonpath={.items[0].metadata.labels.network\.antreaplus\.io/name}`)
	if dev3 == "" || vpc == "" {
		return fmt.Errorf("dev-build-3's address %q or network %q is not imported", dev3, vpc)
	}
	d.printf("  member-1 puts a Service in front of its VM dev-build-3 (no selector: its owner writes the EndpointSlice)\n")
	d.printf("  and exports it over the flat network, naming the network its address is in: dev-build-3's VPC %s,\n", vpc)
	d.printf("  which the sandbox declared flat to the other VMs' networks (without it, the address would be taken for\n")
	d.printf("  member-1's cluster network, which no VM reaches, and the federated policy would allow nothing):\n")
	svc := fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: vm-echo, namespace: cloud-demo}
spec:
  ports: [{name: echo, protocol: TCP, port: 8080, targetPort: 8080}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: vm-echo-dev-build-3
  namespace: cloud-demo
  labels: {kubernetes.io/service-name: vm-echo, endpointslice.kubernetes.io/managed-by: cloud-demo-admin}
addressType: IPv4
ports: [{name: echo, protocol: TCP, port: 8080}]
endpoints: [{addresses: [%s], conditions: {ready: true}}]
`, dev3)
	d.indent("  ", svc)
	if err := d.applyText("member-1", svc); err != nil {
		return err
	}
	if err := d.show("  ", true, true, d.antreaplus, "service", "export", "vm-echo", "-n", cloudNS, "--context", "member-1", "--flat-network", "--network", vpc); err != nil {
		return err
	}
	d.printf("  azure-dev-build-3 finds it by name with its own resolver, which its agent pointed at its DNS forwarder\n")
	d.printf("  (127.0.0.153): clusterset.local goes to member-2's DNS server, whose address member-2's policy controller gave:\n")
	if err := d.vmDig("azure-dev-build-3", "vm-echo.cloud-demo.svc.clusterset.local"); err != nil {
		return err
	}
	d.printf("  before any policy, real TCP connections from azure-dev-build-3 (an Azure VM of member-2):\n")
	if err := d.probes("azure-dev-build-3", "dev-build-3:8080", "dev-build-1:8080"); err != nil {
		return err
	}
	if err := d.apply("member-2", "build-3-egress.yaml", true); err != nil {
		return err
	}
	if err := d.waitProbe("azure-dev-build-3", "dev-build-1:8080", "blocked"); err != nil {
		return err
	}
	if err := d.waitProbe("azure-dev-build-3", "dev-build-3:8080", "connected"); err != nil {
		return err
	}
	d.printf("  after (enforced by azure-dev-build-3's agent, through member-2's policy controller):\n")
	if err := d.probes("azure-dev-build-3", "dev-build-3:8080", "dev-build-1:8080"); err != nil {
		return err
	}
	if err := d.derived("build-3-egress"); err != nil {
		return err
	}
	return d.policyCLI("status", "build-3-egress", "-n", cloudNS, "--context", "member-2")
}

func (d *demo) federatedIngress() error {
	d.printf("  member-1 exports its dev VMs:\n")
	if err := d.apply("member-1", "dev-vms-export.yaml", true); err != nil {
		return err
	}
	err := d.wait("member-1's dev VMs imported into member-2", time.Minute, func() error {
		out, err := d.k("--context", "member-2", "-n", cloudNS, "get", "remoteentities", "-l", "federation.antreaplus.io/source-cluster=member-1", "-o", "name")
		if n := len(strings.Fields(out)); err != nil || n < 3 {
			return errNot("%d RemoteEntities (%v)", n, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.printf("  member-2's leader imports them (kubectl --context member-2 -n cloud-demo get remoteentities):\n")
	if err := d.showK("    ", "--context", "member-2", "-n", cloudNS, "get", "remoteentities",
		"-o", `custom-columns=NAME:.metadata.name,SOURCE:.spec.sourceCluster,VM:.metadata.labels.tag\.cloud\.antreaplus\.io/Name,ENDPOINTS:.spec.endpoints[*].ip`); err != nil {
		return err
	}
	d.printf("  before any policy, real TCP connections to azure-dev-build-2 (an Azure VM of member-2):\n")
	for _, from := range []string{"dev-build-1", "dev-build-3"} {
		if err := d.probes(from, "azure-dev-build-2:8080"); err != nil {
			return err
		}
	}
	if err := d.apply("member-2", "build-2-from-aws.yaml", true); err != nil {
		return err
	}
	if err := d.waitProbe("dev-build-3", "azure-dev-build-2:8080", "blocked"); err != nil {
		return err
	}
	if err := d.waitProbe("dev-build-1", "azure-dev-build-2:8080", "connected"); err != nil {
		return err
	}
	d.printf("  after (enforced by azure-dev-build-2's agent):\n")
	for _, from := range []string{"dev-build-1", "dev-build-3"} {
		if err := d.probes(from, "azure-dev-build-2:8080"); err != nil {
			return err
		}
	}
	if err := d.derived("build-2-from-aws"); err != nil {
		return err
	}
	if err := d.policyCLI("list"); err != nil {
		return err
	}
	d.printf("  A federated policy never names remote Pods: such a peer is refused, and says why:\n")
	if err := d.apply("member-2", "remote-pods.yaml", true); err != nil {
		return err
	}
	err = d.wait("remote-pods refused its Pod peer", 30*time.Second, func() error {
		st := d.jsonpath("member-2", "-n", cloudNS, "get", "fnp", "remote-pods", "-o", "jsonpath={.status.phase}/{.status.refusedPeers[0].reason}")
		if st != "Realized/RemotePodsRefused" {
			return errNot("%s", st)
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.printf("  antreaplus policy status remote-pods -n cloud-demo --context member-2 (the federated policy)\n")
	out, err := d.ap("policy", "status", "remote-pods", "-n", cloudNS, "--context", "member-2")
	if i := strings.Index(out, "\n\n"); i >= 0 {
		out = out[:i]
	}
	d.indent("  ", out)
	return err
}

func (d *demo) networks() error {
	d.printf("  member-1's AWS VPC edge and member-2's Azure VNet edge are both 10.0.0.0/16, not connected: AWS's edge-web-1\n")
	d.printf("  and Azure's edge-twin-1 are both 10.0.1.5. edge-web-1 leaves through its VPC's NAT gateway; edge-db-1 has a\n")
	d.printf("  public IP. The Networks each member holds (its cloud controller wrote them; the sandbox declared the rest flat):\n")
	for _, c := range []string{"member-1", "member-2"} {
		d.printf("    kubectl --context %s get networks.federation.antreaplus.io\n", c)
		if err := d.showK("      ", "--context", c, "get", "networks.federation.antreaplus.io",
			"-o", "custom-columns=NAME:.metadata.name,CIDRS:.spec.cidrs,FLAT:.spec.flat[*].network"); err != nil {
			return err
		}
	}
	d.printf("  member-1's import of edge-web-1, classified (kubectl --context member-1 -n cloud-demo get networkinterfaces):\n")
	out, err := d.k("--context", "member-1", "-n", cloudNS, "get", "networkinterfaces",
		"-o", "custom-columns=VM:.spec.virtualMachine,PRIVATE:.spec.privateIPs,PUBLIC:.spec.publicIPs,EGRESS:.spec.egressIPs,NAT:.spec.natGatewayID")
	if err != nil {
		return err
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "VM") || strings.Contains(l, "10.0.") {
			d.printf("    %s\n", l)
		}
	}
	if err := d.apply("member-1", "edge-vms-export.yaml", false); err != nil {
		return err
	}
	dbPublic, err := d.edgeDBPublic()
	if err != nil {
		return err
	}
	d.printf("  member-1 exports its edge VMs; member-2 applies to edge-db-1:\n")
	if err := d.apply("member-2", "edge-db.yaml", true); err != nil {
		return err
	}
	if err := d.waitProbe("edge-twin-1", "edge-db-1:8080", "blocked"); err != nil {
		return err
	}
	if err := d.waitProbe("edge-web-1", dbPublic+":8080", "connected"); err != nil {
		return err
	}
	d.printf("  real TCP: the remote VM through its NAT address, the local VM with the same private address, the flat pair:\n")
	for _, p := range [][2]string{{"edge-web-1", dbPublic + ":8080"}, {"edge-twin-1", "edge-db-1:8080"}, {"dev-build-1", "azure-dev-build-2:8080"}} {
		if err := d.probes(p[0], p[1]); err != nil {
			return err
		}
	}
	d.printf("  what edge-db-1's agent admits (the NAT gateway's address, never 10.0.1.5):\n")
	if err := d.showK("    ", "--context", "member-2", "-n", cloudNS, "get", "groups.crd.antrea.io", "-l", "policy.antreaplus.io/federated-policy=edge-db",
		"-o", "custom-columns=GROUP:.metadata.name,IPBLOCKS:.spec.ipBlocks[*].cidr"); err != nil {
		return err
	}
	d.printf("  and why: the status of each remote peer (the NAT gateway shared; edge-web-1 unreachable from edge-db-1):\n")
	return d.remoteSources("edge-db")
}

// edgeDBPublic is edge-db-1's public address, as member-2 imported it.
func (d *demo) edgeDBPublic() (string, error) {
	out, err := d.k("--context", "member-2", "-n", cloudNS, "get", "networkinterfaces", "-o", "json")
	if err != nil {
		return "", err
	}
	var list struct {
		Items []struct {
			Spec struct {
				PrivateIPs []string `json:"privateIPs"`
				PublicIPs  []string `json:"publicIPs"`
			} `json:"spec"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		return "", err
	}
	for _, n := range list.Items {
		if slices.Contains(n.Spec.PrivateIPs, "10.0.1.10") && len(n.Spec.PublicIPs) > 0 {
			return n.Spec.PublicIPs[0], nil
		}
	}
	return "", fmt.Errorf("edge-db-1 (10.0.1.10) has no public IP in member-2's inventory")
}

// remoteSources prints a federated policy's remote sources of member-2.
func (d *demo) remoteSources(name string) error {
	out, err := d.k("--context", "member-2", "-n", cloudNS, "get", "fnp", name, "-o", "json")
	if err != nil {
		return err
	}
	var p struct {
		Status struct {
			RemoteSources []struct {
				Rule         string          `json:"rule"`
				Resolved     json.RawMessage `json:"resolved"`
				Addresses    json.RawMessage `json:"addresses"`
				SharedEgress []any           `json:"sharedEgress"`
				Unusable     []any           `json:"unusable"`
			} `json:"remoteSources"`
		} `json:"status"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		return err
	}
	for _, s := range p.Status.RemoteSources {
		d.printf("    %s: resolved=%s addresses=%s\n", s.Rule, s.Resolved, s.Addresses)
		for _, e := range s.SharedEgress {
			b, _ := json.Marshal(e)
			d.printf("      shared egress: %s\n", b)
		}
		for _, u := range s.Unusable {
			b, _ := json.Marshal(u)
			d.printf("      unusable: %s\n", b)
		}
	}
	return nil
}
