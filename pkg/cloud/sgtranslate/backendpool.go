package sgtranslate

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// HealthProbeSource is where Azure's load balancer health probes come from
// (the AzureLoadBalancer service tag): allowed on the backend ports of a
// load balancer whose rules are enforced on its backends, or the load
// balancer would take every backend out of rotation.
const HealthProbeSource = "168.63.129.16/32"

// backendPools translates the rules of load balancers enforced on their
// backend pools (Azure's), after every VM endpoint is placed:
//
//   - the load balancer's group holds its ingress rules, narrowed to the
//     backend ports, plus the health probes on those ports, and no egress;
//     it is attached to every backend interface;
//   - a backend interface without a group of its own (no policy applies
//     to its VM) also gets an "open" group allowing every other port and
//     all egress, so that the load balancer's rules restrict its ports
//     alone, as they do on AWS; one such group per set of ports, shared;
//   - a backend with a group of its own keeps it: on the backend ports it
//     admits the peers of both policies (reported).
func (res *Result) backendPools(prefix string, eps []*Endpoint) {
	if len(eps) == 0 {
		return
	}
	// Interfaces with groups of their own: VM endpoints with rules. Azure
	// ids are case-insensitive: a backend is named as its VM endpoint
	// names it, whatever the case.
	own := map[Location]map[string]bool{}
	spelled := map[string]string{}
	for loc, spec := range res.Specs {
		own[loc] = map[string]bool{}
		for nic, groups := range spec.Attachments {
			spelled[strings.ToLower(nic)] = nic
			if len(groups) > 0 {
				own[loc][nic] = true
			}
		}
	}
	type bare struct {
		loc   Location
		ports []provider.Port
		owner string
	}
	bares := map[string]*bare{} // interface id -> the ports of its load balancers
	for _, ep := range eps {
		svc := ep.Service
		loc := svc.Location
		spec := res.spec(prefix, loc)
		t, hasIngress := serviceRules(ep, "a load balancer")
		res.Owners[loc][svc.ID] = ep.Name
		if hasIngress {
			g := provider.SecurityGroup{Name: GroupName(prefix, ep.Name),
				Description: "AntreaPlus agentless rules of ExternalEntity " + ep.Name + " on its backend pool",
				Ingress:     append(narrow(t.direction(policyrules.DirectionIngress), svc.Ports), probes(svc.Ports)...), Egress: []provider.Rule{}}
			spec.Groups = append(spec.Groups, g)
			res.Owners[loc][g.Name] = ep.Name
			for _, nic := range svc.Backends {
				nic = cmp.Or(spelled[strings.ToLower(nic)], nic)
				spelled[strings.ToLower(nic)] = nic
				spec.Attachments[nic] = append(spec.Attachments[nic], g.Name)
				if own[loc][nic] {
					continue
				}
				b := bares[nic]
				if b == nil {
					b = &bare{loc: loc, owner: ep.Name}
					bares[nic] = b
				}
				b.ports = append(b.ports, svc.Ports...)
			}
			msg := fmt.Sprintf("an Azure load balancer carries no security group: its rules are enforced on the %d network interface(s) of its backend pool, on the ports they receive its traffic on (%s), which also admits the same peers to those VMs directly on those ports; Azure's health probes (%s) are allowed",
				len(svc.Backends), portList(svc.Ports), HealthProbeSource)
			if len(svc.Backends) == 0 {
				msg = "an Azure load balancer carries no security group and its backend pool is empty: its rules will be enforced on the network interfaces that join it"
			}
			t.findings = append(t.findings, Finding{Endpoint: ep.Name, Severity: SeverityApproximated, Reason: ReasonOnBackendPool, Message: msg})
		}
		res.Findings = append(res.Findings, t.findings...)
		res.Specs[loc] = spec
	}
	// The open groups of backends without groups of their own.
	for _, nic := range sortedKeys(bares) {
		b := bares[nic]
		ports := canonicalPorts(b.ports)
		name := openGroupName(prefix, ports)
		spec := res.Specs[b.loc]
		if !slices.ContainsFunc(spec.Groups, func(g provider.SecurityGroup) bool { return g.Name == name }) {
			spec.Groups = append(spec.Groups, provider.SecurityGroup{Name: name,
				Description: "AntreaPlus: what no policy restricts on load balancer backends (all but ports " + portList(ports) + ")",
				Ingress:     otherPorts(ports), Egress: []provider.Rule{{Protocol: "all", CIDR: allOf[0].String()}, {Protocol: "all", CIDR: allOf[1].String()}}})
			res.Owners[b.loc][name] = b.owner
		}
		spec.Attachments[nic] = append(spec.Attachments[nic], name)
		res.Specs[b.loc] = spec
	}
}

// probes allow the health probes on every port.
func probes(ports []provider.Port) []provider.Rule {
	out := []provider.Rule{}
	for _, p := range canonicalPorts(ports) {
		out = append(out, provider.Rule{Protocol: strings.ToLower(p.Protocol), FromPort: p.Port, ToPort: p.Port, CIDR: HealthProbeSource})
	}
	if len(ports) == 0 {
		out = append(out, provider.Rule{Protocol: "all", CIDR: HealthProbeSource})
	}
	return out
}

// canonicalPorts are the TCP and UDP ports of ports, sorted, each once,
// without names.
func canonicalPorts(ports []provider.Port) []provider.Port {
	var out []provider.Port
	for _, p := range ports {
		proto := strings.ToUpper(p.Protocol)
		if (proto == "TCP" || proto == "UDP") && p.Port > 0 {
			out = append(out, provider.Port{Protocol: proto, Port: p.Port})
		}
	}
	slices.SortFunc(out, func(a, b provider.Port) int {
		return cmp.Or(cmp.Compare(a.Protocol, b.Protocol), cmp.Compare(a.Port, b.Port))
	})
	return slices.Compact(out)
}

// otherPorts allows every TCP and UDP port but ports, and ICMP, from
// anywhere.
func otherPorts(ports []provider.Port) []provider.Rule {
	var out []provider.Rule
	for _, proto := range []string{"TCP", "UDP"} {
		next := int32(0)
		for _, p := range ports {
			if p.Protocol != proto {
				continue
			}
			if p.Port > next {
				out = appendBoth(out, strings.ToLower(proto), next, p.Port-1)
			}
			next = p.Port + 1
		}
		if next <= 65535 {
			out = appendBoth(out, strings.ToLower(proto), next, 65535)
		}
	}
	out = append(out, provider.Rule{Protocol: "icmp", FromPort: -1, ToPort: -1, CIDR: allOf[0].String()},
		provider.Rule{Protocol: "icmpv6", FromPort: -1, ToPort: -1, CIDR: allOf[1].String()})
	return out
}

func appendBoth(out []provider.Rule, proto string, from, to int32) []provider.Rule {
	return append(out, provider.Rule{Protocol: proto, FromPort: from, ToPort: to, CIDR: allOf[0].String()},
		provider.Rule{Protocol: proto, FromPort: from, ToPort: to, CIDR: allOf[1].String()})
}

// openGroupName names the open group of a set of backend ports.
func openGroupName(prefix string, ports []provider.Port) string {
	sum := sha256.Sum256([]byte(portList(ports)))
	return prefix + "backend-open-" + hex.EncodeToString(sum[:5])
}

func portList(ports []provider.Port) string {
	if len(ports) == 0 {
		return "every port"
	}
	parts := make([]string, 0, len(ports))
	for _, p := range ports {
		parts = append(parts, fmt.Sprintf("%s %d", strings.ToUpper(p.Protocol), p.Port))
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
