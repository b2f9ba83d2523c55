package aws

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

func tcp(port int32, peer string) provider.Rule {
	r := provider.Rule{Protocol: "tcp", FromPort: port, ToPort: port}
	if strings.Contains(peer, "/") {
		r.CIDR = peer
	} else {
		r.Group = peer
	}
	return r
}

func spec(groups []provider.SecurityGroup, attach map[string][]string) provider.SecurityGroupSpec {
	return provider.SecurityGroupSpec{VPCID: "vpc-1", Prefix: "ap-", Groups: groups, Attachments: attach}
}

var (
	web = provider.SecurityGroup{Name: "ap-web", Ingress: []provider.Rule{tcp(443, "10.0.0.0/8"), tcp(443, "ap-lb")}, Egress: []provider.Rule{{Protocol: "all", CIDR: "0.0.0.0/0"}}}
	lb  = provider.SecurityGroup{Name: "ap-lb", Ingress: []provider.Rule{tcp(80, "0.0.0.0/0")}}
	// webAlone is web without its rule from lb.
	webAlone = provider.SecurityGroup{Name: "ap-web", Ingress: web.Ingress[:1], Egress: web.Egress}
)

// realised is the cloud state after web and lb are realised, attached to
// eni-1 (web) and eni-2 (web, lb), both also in the unmanaged sg-default.
func realised() cloudState {
	return cloudState{
		groups: map[string]*groupState{
			"ap-web": {id: "sg-web", name: "ap-web", ingress: []rule{{"tcp", 443, 443, "10.0.0.0/8"}, {"tcp", 443, 443, "sg:ap-lb"}}, egress: []rule{defaultEgress}},
			"ap-lb":  {id: "sg-lb", name: "ap-lb", ingress: []rule{{"tcp", 80, 80, "0.0.0.0/0"}}},
		},
		nics: map[string][]string{"eni-1": {"sg-default", "sg-web"}, "eni-2": {"sg-default", "sg-web", "sg-lb"}, "eni-3": {"sg-default"}},
	}
}

// summary renders a plan compactly for table tests.
func summary(p sgPlan) string {
	var parts []string
	for _, g := range p.create {
		parts = append(parts, "create "+g.Name)
	}
	for _, c := range p.changes {
		dir := "in"
		if c.egress {
			dir = "out"
		}
		for _, r := range c.add {
			parts = append(parts, fmt.Sprintf("+%s/%s %s", c.group, dir, r))
		}
		for _, r := range c.del {
			parts = append(parts, fmt.Sprintf("-%s/%s %s", c.group, dir, r))
		}
	}
	for _, nic := range sortedNames(p.interfaces) {
		parts = append(parts, nic+"="+strings.Join(slices.Sorted(slices.Values(p.interfaces[nic])), ","))
	}
	for _, c := range p.unlink {
		for _, r := range c.del {
			parts = append(parts, fmt.Sprintf("unlink %s %s", c.group, r))
		}
	}
	for _, g := range p.delete {
		parts = append(parts, "delete "+g.name)
	}
	for _, u := range p.unrealized {
		parts = append(parts, "! "+u.Object+": "+u.Reason)
	}
	return strings.Join(parts, "\n")
}

func TestPlanSecurityGroups(t *testing.T) {
	lim := limits{rulesPerGroup: 3, groupsPerInterface: 3}
	empty := cloudState{nics: map[string][]string{"eni-1": {"sg-default"}, "eni-2": {"sg-default"}, "eni-3": {"sg-default"}}}
	attach := map[string][]string{"eni-1": {"ap-web"}, "eni-2": {"ap-web", "ap-lb"}}
	tooMany := provider.SecurityGroup{Name: "ap-big", Ingress: []provider.Rule{tcp(1, "10.0.0.1/32"), tcp(2, "10.0.0.1/32"), tcp(3, "10.0.0.1/32"), tcp(4, "10.0.0.1/32")}}
	for _, tc := range []struct {
		name string
		spec provider.SecurityGroupSpec
		cur  cloudState
		want []string
	}{
		{
			name: "from scratch",
			spec: spec([]provider.SecurityGroup{web, lb}, attach),
			cur:  empty,
			want: []string{
				"create ap-web", "create ap-lb",
				"+ap-web/in tcp 443-443 10.0.0.0/8", "+ap-web/in tcp 443-443 sg:ap-lb",
				"+ap-lb/in tcp 80-80 0.0.0.0/0", "-ap-lb/out -1 0-0 0.0.0.0/0",
				"eni-1=id:sg-default,sg:ap-web", "eni-2=id:sg-default,sg:ap-lb,sg:ap-web",
			},
		},
		{name: "nothing changed", spec: spec([]provider.SecurityGroup{web, lb}, attach), cur: realised(), want: nil},
		{
			name: "rules drifted",
			spec: spec([]provider.SecurityGroup{web, lb}, attach),
			cur: func() cloudState {
				c := realised()
				c.groups["ap-web"].ingress = []rule{{"tcp", 443, 443, "10.0.0.0/8"}, {"tcp", 22, 22, "0.0.0.0/0"}}
				return c
			}(),
			want: []string{"+ap-web/in tcp 443-443 sg:ap-lb", "-ap-web/in tcp 22-22 0.0.0.0/0"},
		},
		{
			name: "stale group and stale attachment",
			spec: spec([]provider.SecurityGroup{webAlone}, map[string][]string{"eni-1": {"ap-web"}}),
			cur:  realised(),
			want: []string{
				"-ap-web/in tcp 443-443 sg:ap-lb",
				"eni-2=id:sg-default",
				"delete ap-lb",
			},
		},
		{
			name: "stale groups referring to each other",
			spec: spec(nil, nil),
			cur:  realised(),
			want: []string{"eni-1=id:sg-default", "eni-2=id:sg-default", "unlink ap-web tcp 443-443 sg:ap-lb", "delete ap-lb", "delete ap-web"},
		},
		{
			name: "a group over the rule quota is reported and left out",
			spec: spec([]provider.SecurityGroup{tooMany}, map[string][]string{"eni-1": {"ap-big"}}),
			cur:  empty,
			want: []string{"! ap-big: 4 ingress rules exceed the quota of 3 rules per security group"},
		},
		{
			name: "an existing group over the quota keeps its rules and attachments",
			spec: spec([]provider.SecurityGroup{web, {Name: "ap-lb", Ingress: tooMany.Ingress}}, attach),
			cur:  realised(),
			want: []string{"! ap-lb: 4 ingress rules exceed the quota of 3 rules per security group"},
		},
		{
			name: "too many groups on an interface",
			spec: spec([]provider.SecurityGroup{web, lb, {Name: "ap-x"}}, map[string][]string{"eni-1": {"ap-web", "ap-lb", "ap-x"}, "eni-2": {"ap-web", "ap-lb"}}),
			cur:  realised(),
			want: []string{"create ap-x", "-ap-x/out -1 0-0 0.0.0.0/0", "! eni-1: 4 security groups exceed the quota of 3 per interface"},
		},
		{
			name: "rules the cloud cannot hold",
			spec: spec([]provider.SecurityGroup{
				{Name: "ap-a", Ingress: []provider.Rule{tcp(1, "ap-nowhere")}},
				{Name: "ap-b", Ingress: []provider.Rule{{Protocol: "sctp", CIDR: "10.0.0.0/8"}}},
				{Name: "ap-c", Ingress: []provider.Rule{tcp(1, "10.0.0.300/8")}},
				{Name: "web"},
				{Name: "ap-d"}, {Name: "ap-d"},
			}, map[string][]string{"eni-9": {"ap-d"}}),
			cur: empty,
			want: []string{
				"create ap-d", "-ap-d/out -1 0-0 0.0.0.0/0",
				`! web: name does not start with the managed prefix "ap-"`,
				"! ap-d: listed twice",
				`! ap-a: rule refers to "ap-nowhere", which is not a managed group of the spec`,
				`! ap-b: protocol "sctp" is not one of tcp, udp, icmp, icmpv6, all`,
				`! ap-c: peer "10.0.0.300/8" is not a CIDR`,
				"! eni-9: network interface not found in VPC vpc-1",
			},
		},
		{
			name: "an interface would be left without a group",
			spec: spec([]provider.SecurityGroup{webAlone}, nil),
			cur:  cloudState{groups: realised().groups, nics: map[string][]string{"eni-1": {"sg-web"}}},
			want: []string{"-ap-web/in tcp 443-443 sg:ap-lb", "delete ap-lb", "! eni-1: an interface needs at least one security group"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := summary(planSecurityGroups(tc.spec, tc.cur, lim))
			if want := strings.Join(tc.want, "\n"); got != want {
				t.Errorf("plan:\n%s\n\nwant:\n%s", got, want)
			}
		})
	}
}
