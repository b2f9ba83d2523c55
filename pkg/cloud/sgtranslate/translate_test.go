package sgtranslate

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// compact writes security group rules as "tcp 80-80 10.0.0.0/8".
func compact(rules []provider.Rule) []string {
	out := make([]string, 0, len(rules))
	for _, r := range rules {
		out = append(out, fmt.Sprintf("%s %d-%d %s", r.Protocol, r.FromPort, r.ToPort, r.CIDR))
	}
	slices.Sort(out)
	return out
}

// findingsOf writes findings as "Severity Reason rule".
func findingsOf(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, string(f.Severity)+" "+f.Reason+" "+f.Rule)
	}
	return out
}

var (
	allowAll    = []string{"all 0-0 0.0.0.0/0", "all 0-0 ::/0"}
	allowAllV6  = "all 0-0 ::/0"
	denyAllBase = rule(in, drop, named("deny-all"), baseline())
)

func TestTranslateRules(t *testing.T) {
	cases := []struct {
		name     string
		rules    []wire.Rule
		ingress  []string // sorted
		egress   []string // nil: allow all
		findings []string
	}{{
		name:    "allow rules without isolation: Antrea lets everything through",
		rules:   []wire.Rule{rule(in, allow, peers("10.0.0.0/8"), ports(tcp(80)))},
		ingress: allowAll,
	}, {
		name:    "allow then a baseline deny-all: an allow list",
		rules:   []wire.Rule{rule(in, allow, peers("10.0.0.0/8"), ports(tcp(80), tcpRange(8000, 8080))), denyAllBase},
		ingress: []string{"tcp 80-80 10.0.0.0/8", "tcp 8000-8080 10.0.0.0/8"},
	}, {
		name:     "a drop without isolation cannot be expressed",
		rules:    []wire.Rule{rule(in, drop, named("no-ssh"), ports(tcp(22)))},
		ingress:  allowAll,
		findings: []string{"Unrealized DenyNotExpressible no-ssh"},
	}, {
		name: "a drop already decided by an earlier allow changes nothing",
		rules: []wire.Rule{rule(in, allow, peers("10.0.0.0/8"), ports(wire.Port{Protocol: policyrules.ProtocolTCP})),
			rule(in, drop, peers("10.1.0.0/16"), ports(tcp(22)))},
		ingress: allowAll,
	}, {
		name: "a drop on every port of an allow removes its peers exactly",
		rules: []wire.Rule{rule(in, drop, peers("10.1.0.0/16"), ports(tcpRange(1, 1024))),
			rule(in, allow, peers("10.0.0.0/14"), ports(tcp(80))), denyAllBase},
		ingress: []string{"tcp 80-80 10.0.0.0/16", "tcp 80-80 10.2.0.0/15"},
	}, {
		name: "a drop on some ports of an allow: the shared peers are denied, reported",
		rules: []wire.Rule{rule(in, drop, named("no-ssh"), peers("10.1.0.0/16"), ports(tcp(22))),
			rule(in, allow, named("tcp"), peers("10.0.0.0/15"), ports(wire.Port{Protocol: policyrules.ProtocolTCP})), denyAllBase},
		ingress:  []string{"tcp 0-65535 10.0.0.0/16"},
		findings: []string{"Unrealized AllowPartlyShadowed tcp"},
	}, {
		name:     "a reject deny-all is enforced as a drop",
		rules:    []wire.Rule{rule(in, allow, peers("10.0.0.0/8"), ports(tcp(443))), rule(in, rej, named("reject-all"))},
		ingress:  []string{"tcp 443-443 10.0.0.0/8"},
		findings: []string{"Approximated RejectEnforcedAsDrop reject-all"},
	}, {
		name: "a pass that the baseline denies is exact",
		rules: []wire.Rule{rule(in, pass, peers("10.1.0.0/16")), rule(in, allow, peers("10.0.0.0/15"), ports(tcp(80))),
			rule(in, drop, baseline(), named("deny-all"))},
		ingress: []string{"tcp 80-80 10.0.0.0/16"},
	}, {
		name: "a pass over a baseline allow is denied, reported",
		rules: []wire.Rule{rule(in, pass, named("to-baseline"), peers("10.1.0.0/16")),
			rule(in, allow, baseline(), peers("10.0.0.0/8"), ports(tcp(80))), denyAllBase},
		ingress:  []string{"tcp 80-80 10.0.0.0/16", "tcp 80-80 10.128.0.0/9", "tcp 80-80 10.16.0.0/12", "tcp 80-80 10.2.0.0/15", "tcp 80-80 10.32.0.0/11", "tcp 80-80 10.4.0.0/14", "tcp 80-80 10.64.0.0/10", "tcp 80-80 10.8.0.0/13"},
		findings: []string{"Unrealized PassNotExpressible to-baseline"},
	}, {
		name:     "a pass before an application-tier deny-all is reported",
		rules:    []wire.Rule{rule(in, pass, named("p"), peers("10.1.0.0/16")), rule(in, drop, named("deny-all"))},
		ingress:  []string{},
		findings: []string{"Unrealized PassNotExpressible p"},
	}, {
		name: "ports a security group cannot hold are denied, reported",
		rules: []wire.Rule{rule(in, allow, named("sctp"), peers("10.0.0.0/8"), ports(wire.Port{Protocol: policyrules.ProtocolSCTP, Port: 9})),
			rule(in, allow, named("src"), peers("10.0.0.0/8"), ports(wire.Port{Protocol: policyrules.ProtocolUDP, Port: 53, SourcePort: 53})),
			rule(in, drop, named("deny-all"))},
		ingress:  []string{},
		findings: []string{"Unrealized PortNotExpressible sctp", "Unrealized PortNotExpressible src"},
	}, {
		name:    "rules after a deny-all are never reached",
		rules:   []wire.Rule{rule(in, drop), rule(in, allow, peers("10.0.0.0/8"))},
		ingress: []string{},
	}, {
		name:    "IPv6 peers and ICMP",
		rules:   []wire.Rule{rule(in, allow, peers("fd00::/8", "10.0.0.0/8"), ports(wire.Port{Protocol: policyrules.ProtocolICMP, ICMPType: 8, ICMPCode: -1})), rule(in, drop)},
		ingress: []string{"icmp 8--1 10.0.0.0/8", "icmpv6 8--1 fd00::/8"},
	}, {
		name: "an IPv4-only deny-all leaves IPv6 open; its drop is not an IPv6 rule",
		rules: []wire.Rule{rule(in, allow, peers("10.0.0.0/8"), ports(tcp(22))), rule(in, drop, peers("0.0.0.0/0")),
			rule(out, allow, peers("10.0.0.0/8"), ports(tcp(53))), rule(out, drop, named("egress-deny"))},
		ingress: []string{allowAllV6, "tcp 22-22 10.0.0.0/8"},
		egress:  []string{"tcp 53-53 10.0.0.0/8"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Translate("antreaplus-", []Endpoint{endpoint("ns/nic-eni-1", nic("eni-1", "vpc-1"), tc.rules...)})
			spec := res.Specs[nic("eni-1", "vpc-1").Location]
			if len(spec.Groups) != 1 {
				t.Fatalf("groups = %+v; want one", spec.Groups)
			}
			g := spec.Groups[0]
			if got := compact(g.Ingress); !slices.Equal(got, tc.ingress) {
				t.Errorf("ingress = %q\nwant %q", got, tc.ingress)
			}
			wantEgress := tc.egress
			if wantEgress == nil {
				wantEgress = allowAll
			}
			if got := compact(g.Egress); !slices.Equal(got, wantEgress) {
				t.Errorf("egress = %q\nwant %q", got, wantEgress)
			}
			want := tc.findings
			if want == nil {
				want = []string{}
			}
			if got := findingsOf(res.Findings); !slices.Equal(got, want) {
				t.Errorf("findings = %q\nwant %q", got, want)
			}
		})
	}
}

func TestTranslateLayout(t *testing.T) {
	isolated := []wire.Rule{rule(in, allow, peers("10.0.0.0/8"), ports(tcp(80))), rule(in, drop)}
	res := Translate("antreaplus-", []Endpoint{
		endpoint("b/nic-eni-2", nic("eni-2", "vpc-2"), isolated...),
		endpoint("a/nic-eni-1", nic("eni-1", "vpc-1"), isolated...),
		endpoint("a/nic-eni-3", nic("eni-3", "vpc-1")), // no rules: no group
		{Name: "a/svc-db", Rules: isolated, Unplaced: "cloud-native services are not enforced agentless"},
		endpoint("a/unused", nil), // no rules, no interface: nothing to say
	})
	if len(res.Specs) != 2 {
		t.Fatalf("specs = %d; want 2 (one per VPC)", len(res.Specs))
	}
	vpc1 := res.Specs[nic("", "vpc-1").Location]
	if vpc1.VPCID != "vpc-1" || vpc1.Prefix != "antreaplus-" || len(vpc1.Groups) != 1 || vpc1.Groups[0].Name != "antreaplus-a.nic-eni-1" {
		t.Errorf("vpc-1 spec = %+v", vpc1)
	}
	if got := vpc1.Attachments; len(got) != 1 || !slices.Equal(got["eni-1"], []string{"antreaplus-a.nic-eni-1"}) {
		t.Errorf("vpc-1 attachments = %v; want eni-1 only", got)
	}
	owners := res.Owners[nic("", "vpc-1").Location]
	if owners["antreaplus-a.nic-eni-1"] != "a/nic-eni-1" || owners["eni-3"] != "a/nic-eni-3" {
		t.Errorf("owners = %v", owners)
	}
	if got := findingsOf(res.Findings); !slices.Equal(got, []string{"Unrealized NotANetworkInterface "}) || res.Findings[0].Endpoint != "a/svc-db" {
		t.Errorf("findings = %+v", res.Findings)
	}
}

func TestGroupName(t *testing.T) {
	if got := GroupName("antreaplus-", "ns/nic-eni-1"); got != "antreaplus-ns.nic-eni-1" {
		t.Errorf("GroupName = %q", got)
	}
	long := GroupName("antreaplus-", "ns/"+strings.Repeat("x", 300))
	if len(long) != maxGroupName || long == GroupName("antreaplus-", "ns/"+strings.Repeat("x", 301)) {
		t.Errorf("long names must be cut to %d and stay distinct: %q", maxGroupName, long)
	}
}

func TestSubtractPeers(t *testing.T) {
	got := subtractPeers([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/30")}, []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")})
	want := []string{"10.0.0.0/32", "10.0.0.2/31"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("subtract = %v; want %v", got, want)
	}
}

func TestTranslateService(t *testing.T) {
	db := &Service{ID: "arn:aws:rds:us-east-1:1:db:orders", Location: nic("", "vpc-1").Location,
		Ports: []provider.Port{{Protocol: "TCP", Port: 5432}}}
	cases := []struct {
		name     string
		rules    []wire.Rule
		ingress  []string // nil: no group
		findings []string
	}{{
		name:    "an allow list on the service's port",
		rules:   []wire.Rule{rule(in, allow, peers("10.1.0.0/16"), ports(tcp(5432))), denyAllBase},
		ingress: []string{"tcp 5432-5432 10.1.0.0/16"},
	}, {
		name:    "every port: narrowed to the port it listens on",
		rules:   []wire.Rule{rule(in, allow, peers("10.1.0.0/16")), rule(in, allow, peers("10.2.0.0/16"), ports(tcpRange(5000, 6000))), denyAllBase},
		ingress: []string{"tcp 5432-5432 10.1.0.0/16", "tcp 5432-5432 10.2.0.0/16"},
	}, {
		name:    "a port it does not listen on allows nothing",
		rules:   []wire.Rule{rule(in, allow, peers("10.1.0.0/16"), ports(tcp(80))), denyAllBase},
		ingress: []string{},
	}, {
		name:    "open: every peer on its port",
		rules:   []wire.Rule{rule(in, allow, peers("10.1.0.0/16"), ports(tcp(5432)))},
		ingress: []string{"tcp 5432-5432 0.0.0.0/0", "tcp 5432-5432 ::/0"},
	}, {
		name:     "egress is reported, never applied",
		rules:    []wire.Rule{rule(in, allow, peers("10.1.0.0/16")), denyAllBase, rule(out, allow, named("to-s3"), peers("52.0.0.0/8")), rule(out, drop, named("deny-out"))},
		ingress:  []string{"tcp 5432-5432 10.1.0.0/16"},
		findings: []string{"Unrealized EgressFromService to-s3", "Unrealized EgressFromService deny-out"},
	}, {
		name:     "egress alone: no group",
		rules:    []wire.Rule{rule(out, drop, named("deny-out"))},
		findings: []string{"Unrealized EgressFromService deny-out"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Translate("antreaplus-", []Endpoint{{Name: "ns/svc-orders", Service: db, Rules: tc.rules}})
			spec := res.Specs[db.Location]
			if tc.ingress == nil {
				if len(spec.Groups) != 0 || len(spec.Services[db.ID]) != 0 {
					t.Fatalf("spec = %+v; want no group", spec)
				}
			} else {
				if len(spec.Groups) != 1 || !slices.Equal(spec.Services[db.ID], []string{"antreaplus-ns.svc-orders"}) || len(spec.Attachments) != 0 {
					t.Fatalf("spec = %+v; want one group on the service", spec)
				}
				if got := compact(spec.Groups[0].Ingress); !slices.Equal(got, tc.ingress) {
					t.Errorf("ingress = %q\nwant %q", got, tc.ingress)
				}
				if len(spec.Groups[0].Egress) != 0 {
					t.Errorf("egress = %+v; want none: the service's own groups decide", spec.Groups[0].Egress)
				}
			}
			if res.Owners[db.Location][db.ID] != "ns/svc-orders" {
				t.Errorf("owners = %v", res.Owners)
			}
			want := tc.findings
			if want == nil {
				want = []string{}
			}
			if got := findingsOf(res.Findings); !slices.Equal(got, want) {
				t.Errorf("findings = %q\nwant %q", got, want)
			}
		})
	}
}

func TestTranslateBackendPool(t *testing.T) {
	loc := nic("", "vnet-1").Location
	lb := &Service{ID: "lb-1", Location: loc, BackendPool: true, Backends: []string{"NIC-A", "nic-b"},
		Ports: []provider.Port{{Protocol: "TCP", Port: 8080}}}
	isolated := []wire.Rule{rule(in, allow, peers("10.1.0.0/16"), ports(tcp(8080))), denyAllBase}
	vm := []wire.Rule{rule(in, allow, peers("10.9.0.0/16"), ports(tcp(22))), denyAllBase}
	res := Translate("antreaplus-", []Endpoint{
		{Name: "ns/svc-lb", Service: lb, Rules: isolated},
		// nic-a has a policy of its own (its id spelled in another case).
		endpoint("ns/nic-a", &Interface{ID: "nic-a", Location: loc}, vm...),
	})
	spec := res.Specs[loc]
	byName := map[string]provider.SecurityGroup{}
	for _, g := range spec.Groups {
		byName[g.Name] = g
	}
	g, ok := byName["antreaplus-ns.svc-lb"]
	if !ok {
		t.Fatalf("groups = %+v; want the load balancer's", spec.Groups)
	}
	if got, want := compact(g.Ingress), []string{"tcp 8080-8080 10.1.0.0/16", "tcp 8080-8080 168.63.129.16/32"}; !slices.Equal(got, want) || len(g.Egress) != 0 {
		t.Errorf("load balancer group ingress %q egress %+v; want %q and no egress", got, g.Egress, want)
	}
	if got := spec.Attachments["nic-a"]; !slices.Equal(got, []string{"antreaplus-ns.nic-a", "antreaplus-ns.svc-lb"}) {
		t.Errorf("nic-a carries %v; want its own group and the load balancer's", got)
	}
	if _, dup := spec.Attachments["NIC-A"]; dup {
		t.Errorf("nic-a is named twice: %v", spec.Attachments)
	}
	open := spec.Attachments["nic-b"]
	if len(open) != 2 || open[0] != "antreaplus-ns.svc-lb" || !strings.HasPrefix(open[1], "antreaplus-backend-open-") {
		t.Fatalf("nic-b carries %v; want the load balancer's group and an open group", open)
	}
	o := byName[open[1]]
	if got, want := compact(o.Ingress), []string{
		"icmp -1--1 0.0.0.0/0", "icmpv6 -1--1 ::/0", "tcp 0-8079 0.0.0.0/0", "tcp 0-8079 ::/0", "tcp 8081-65535 0.0.0.0/0", "tcp 8081-65535 ::/0",
		"udp 0-65535 0.0.0.0/0", "udp 0-65535 ::/0"}; !slices.Equal(got, want) {
		t.Errorf("open group ingress %q\nwant %q", got, want)
	}
	if got := compact(o.Egress); !slices.Equal(got, allowAll) {
		t.Errorf("open group egress %q; want all", got)
	}
	if got := findingsOf(res.Findings); !slices.Equal(got, []string{"Approximated EnforcedOnBackendPool "}) || !strings.Contains(res.Findings[0].Message, "2 network interface(s) of its backend pool") {
		t.Errorf("findings = %+v", res.Findings)
	}
}
