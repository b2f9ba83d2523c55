package sgtranslate

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// maxGroupName is EC2's limit on a security group's name.
const maxGroupName = 255

// GroupName is the name of the managed group of an endpoint
// "namespace/name": the prefix, the namespace, a dot and the name, cut and
// suffixed with a digest when too long.
func GroupName(prefix, endpoint string) string {
	ns, name, _ := cutEndpoint(endpoint)
	out := prefix + ns + "." + name
	if len(out) <= maxGroupName {
		return out
	}
	sum := sha256.Sum256([]byte(endpoint))
	suffix := "-" + hex.EncodeToString(sum[:6])
	return out[:maxGroupName-len(suffix)] + suffix
}

func cutEndpoint(endpoint string) (string, string, bool) {
	for i := range len(endpoint) {
		if endpoint[i] == '/' {
			return endpoint[:i], endpoint[i+1:], true
		}
	}
	return "", endpoint, false
}

// Translate computes the security groups of every location of endpoints,
// and what they cannot enforce as written. See the package documentation
// for the semantics.
func Translate(prefix string, endpoints []Endpoint) Result {
	res := Result{Specs: map[Location]provider.SecurityGroupSpec{}, Owners: map[Location]map[string]string{}}
	sorted := slices.Clone(endpoints)
	slices.SortFunc(sorted, func(a, b Endpoint) int { return cmp.Compare(a.Name, b.Name) })
	var pools []*Endpoint
	for i := range sorted {
		ep := &sorted[i]
		if ep.Interface == nil && ep.Service != nil && ep.Service.BackendPool {
			pools = append(pools, ep)
			continue
		}
		if ep.Interface == nil && ep.Service != nil {
			res.service(prefix, ep)
			continue
		}
		if ep.Interface == nil {
			if len(ep.Rules) > 0 {
				res.Findings = append(res.Findings, Finding{Endpoint: ep.Name, Severity: SeverityUnrealized,
					Reason: ReasonNotAnInterface, Message: cmp.Or(ep.Unplaced, "not a VM network interface")})
			}
			continue
		}
		loc := ep.Interface.Location
		spec := res.spec(prefix, loc)
		if len(ep.Rules) > 0 {
			t := endpointTranslation{ep: ep}
			g := provider.SecurityGroup{Name: GroupName(prefix, ep.Name),
				Description: "AntreaPlus agentless rules of ExternalEntity " + ep.Name,
				Ingress:     t.direction(policyrules.DirectionIngress), Egress: t.direction(policyrules.DirectionEgress)}
			spec.Groups = append(spec.Groups, g)
			spec.Attachments[ep.Interface.ID] = []string{g.Name}
			res.Owners[loc][g.Name] = ep.Name
			res.Findings = append(res.Findings, t.findings...)
		}
		res.Owners[loc][ep.Interface.ID] = ep.Name
		res.Specs[loc] = spec
	}
	res.backendPools(prefix, pools)
	return res
}

// spec returns the spec of a location, new if need be.
func (res *Result) spec(prefix string, loc Location) provider.SecurityGroupSpec {
	spec, ok := res.Specs[loc]
	if !ok {
		spec = provider.SecurityGroupSpec{VPCID: loc.VPC, Prefix: prefix, Attachments: map[string][]string{}}
		res.Owners[loc] = map[string]string{}
	}
	if spec.Services == nil {
		spec.Services = map[string][]string{}
	}
	return spec
}

// service translates the rules of a cloud-native service: its ingress
// rules, narrowed to the ports it listens on, become a managed group on
// the service; its egress rules are reported, never applied (the group
// allows no egress, which leaves the service's own groups alone).
func (res *Result) service(prefix string, ep *Endpoint) {
	loc := ep.Service.Location
	spec := res.spec(prefix, loc)
	t, hasIngress := serviceRules(ep, "a database or load balancer")
	if hasIngress {
		g := provider.SecurityGroup{Name: GroupName(prefix, ep.Name),
			Description: "AntreaPlus agentless rules of ExternalEntity " + ep.Name,
			Ingress:     narrow(t.direction(policyrules.DirectionIngress), ep.Service.Ports), Egress: []provider.Rule{}}
		spec.Groups = append(spec.Groups, g)
		spec.Services[ep.Service.ID] = []string{g.Name}
		res.Owners[loc][g.Name] = ep.Name
	}
	res.Findings = append(res.Findings, t.findings...)
	res.Owners[loc][ep.Service.ID] = ep.Name
	res.Specs[loc] = spec
}

// serviceRules starts the translation of a service's rules: its egress
// rules reported (what names the service in the message), and whether it
// has ingress rules.
func serviceRules(ep *Endpoint, what string) (endpointTranslation, bool) {
	t := endpointTranslation{ep: ep}
	hasIngress := false
	for i := range ep.Rules {
		r := &ep.Rules[i]
		if r.Direction == policyrules.DirectionIngress {
			hasIngress = true
			continue
		}
		t.report(r, SeverityUnrealized, ReasonEgressFromService,
			"%s opens no connections that its security groups govern: this egress rule is not enforced (apply it to the clients instead)", what)
	}
	return t, hasIngress
}

// narrow keeps of rules what reaches one of the ports a service listens
// on; with no ports known, rules are kept as they are.
func narrow(rules []provider.Rule, ports []provider.Port) []provider.Rule {
	if len(ports) == 0 {
		return rules
	}
	out := []provider.Rule{}
	for _, r := range rules {
		for _, p := range ports {
			proto := strings.ToLower(p.Protocol)
			if proto != "tcp" && proto != "udp" {
				continue
			}
			if r.Protocol == "all" || (r.Protocol == proto && r.FromPort <= p.Port && p.Port <= r.ToPort) {
				n := provider.Rule{Protocol: proto, FromPort: p.Port, ToPort: p.Port, CIDR: r.CIDR, Group: r.Group}
				if !slices.Contains(out, n) {
					out = append(out, n)
				}
			}
		}
	}
	return out
}

// endpointTranslation translates the rules of one endpoint.
type endpointTranslation struct {
	ep       *Endpoint
	findings []Finding
	reported map[string]bool
}

func (t *endpointTranslation) report(r *wire.Rule, sev Severity, reason, format string, args ...any) {
	f := Finding{Endpoint: t.ep.Name, Policy: r.Policy, Direction: string(r.Direction), Rule: ruleLabel(r),
		Severity: sev, Reason: reason, Message: fmt.Sprintf(format, args...)}
	key := f.Policy.Kind + "|" + f.Policy.Namespace + "|" + f.Policy.Name + "|" + f.Direction + "|" + f.Rule + "|" + f.Reason + "|" + f.Message
	if t.reported[key] {
		return
	}
	if t.reported == nil {
		t.reported = map[string]bool{}
	}
	t.reported[key] = true
	t.findings = append(t.findings, f)
}

// direction returns the security group rules of one direction, for both
// address families.
func (t *endpointTranslation) direction(d policyrules.Direction) []provider.Rule {
	var rules []wire.Rule
	for _, r := range t.ep.Rules {
		if r.Direction == d {
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		return []provider.Rule{{Protocol: "all", CIDR: allOf[0].String()}, {Protocol: "all", CIDR: allOf[1].String()}}
	}
	var out []provider.Rule
	for _, v6 := range []bool{false, true} {
		for _, r := range t.family(rules, v6) {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// family translates the rules of one direction for one address family.
func (t *endpointTranslation) family(rules []wire.Rule, v6 bool) []provider.Rule {
	k := slices.IndexFunc(rules, func(r wire.Rule) bool { return isDenyAll(&r, v6) })
	if k < 0 {
		t.open(rules, v6)
		return []provider.Rule{{Protocol: "all", CIDR: familyAll(v6).String()}}
	}
	var out []provider.Rule
	for i := range rules[:k+1] {
		r := &rules[i]
		if len(familyPeers(r, v6)) == 0 {
			continue
		}
		switch r.Action {
		case policyrules.ActionReject:
			t.report(r, SeverityApproximated, ReasonRejectAsDrop, "security groups drop denied traffic silently: no TCP reset or ICMP error is sent")
		case policyrules.ActionPass:
			if !passExact(rules, i, k, v6) {
				t.report(r, SeverityUnrealized, ReasonPass,
					"security groups cannot pass traffic to the baseline tier: the traffic this rule passes is denied, though the baseline tier may allow some of it")
			}
		case policyrules.ActionAllow:
			out = append(out, t.allow(rules[:i], r, v6)...)
		}
	}
	return out
}

// open reports the deny rules of a family that has no deny-all: security
// groups let through what Antrea lets through by default, and cannot deny
// part of it.
func (t *endpointTranslation) open(rules []wire.Rule, v6 bool) {
	for i := range rules {
		r := &rules[i]
		if !denies(r.Action) || len(familyPeers(r, v6)) == 0 {
			continue
		}
		shadowed := slices.ContainsFunc(rules[:i], func(e wire.Rule) bool {
			return e.Action == policyrules.ActionAllow && coversRule(&e, r, v6)
		})
		if !shadowed {
			t.report(r, SeverityUnrealized, ReasonDenyNotIsolated,
				"security groups only allow traffic: this %s rule is not enforced and the traffic it matches is allowed, as no later %s rule denies all traffic (add a baseline deny-all rule to isolate the VM)",
				r.Action, r.Direction)
		}
	}
}

// passExact reports whether the baseline tier denies all that Pass rule i
// passes: the deny-all k is in the baseline tier and no baseline Allow
// before it overlaps the Pass.
func passExact(rules []wire.Rule, i, k int, v6 bool) bool {
	if !rules[k].InBaselineTier() {
		return false
	}
	for j := i + 1; j < k; j++ {
		if b := &rules[j]; b.InBaselineTier() && b.Action == policyrules.ActionAllow && overlaps(&rules[i], b, v6) {
			return false
		}
	}
	return true
}

// allow translates an Allow rule of an isolated family: its peers minus
// those of earlier deny-like rules that overlap it, times its ports.
func (t *endpointTranslation) allow(earlier []wire.Rule, r *wire.Rule, v6 bool) []provider.Rule {
	peers := familyPeers(r, v6)
	for j := range earlier {
		e := &earlier[j]
		if e.Action == policyrules.ActionAllow || !overlaps(e, r, v6) {
			continue
		}
		if !portsCover(e.Ports, r.Ports) {
			t.report(r, SeverityUnrealized, ReasonShadowedAllow,
				"the earlier %s rule %q of %s matches some of its ports: the traffic it allows from or to the addresses they share is denied on every port",
				e.Action, ruleLabel(e), policyLabel(e.Policy))
		}
		peers = subtractPeers(peers, familyPeers(e, v6))
	}
	if len(peers) == 0 {
		return nil
	}
	var out []provider.Rule
	ports := r.Ports
	if len(ports) == 0 {
		ports = []wire.Port{{}}
	}
	for _, p := range ports {
		proto, from, to, ok := t.port(r, p, v6)
		if !ok {
			continue
		}
		for _, peer := range peers {
			out = append(out, provider.Rule{Protocol: proto, FromPort: from, ToPort: to, CIDR: peer.String()})
		}
	}
	return out
}

// port returns the security group protocol and range of a port, or reports
// it cannot be expressed.
func (t *endpointTranslation) port(r *wire.Rule, p wire.Port, v6 bool) (string, int32, int32, bool) {
	switch p.Protocol {
	case "":
		return "all", 0, 0, true
	case policyrules.ProtocolTCP, policyrules.ProtocolUDP:
		if p.SourcePort != 0 {
			t.report(r, SeverityUnrealized, ReasonPort, "security groups cannot match source ports: the %s traffic it allows is denied", p.Protocol)
			return "", 0, 0, false
		}
		from, to := portRange(p.Port, p.EndPort)
		if p.Protocol == policyrules.ProtocolTCP {
			return "tcp", from, to, true
		}
		return "udp", from, to, true
	case policyrules.ProtocolICMP:
		proto := "icmp"
		if v6 {
			proto = "icmpv6"
		}
		code := p.ICMPCode
		if p.ICMPType == policyrules.AnyType {
			code = policyrules.AnyType
		}
		return proto, p.ICMPType, code, true
	}
	t.report(r, SeverityUnrealized, ReasonPort, "security groups cannot match %s: the traffic it allows is denied", p.Protocol)
	return "", 0, 0, false
}

func policyLabel(p wire.PolicyRef) string {
	if p.Namespace == "" {
		return p.Kind + " " + p.Name
	}
	return p.Kind + " " + p.Namespace + "/" + p.Name
}
