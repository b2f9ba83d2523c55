package azure

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

const (
	tPrefix = "antreaplus-"
	tVNet   = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/prod"
	tNIC1   = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/networkInterfaces/web-nic0"
	tNIC2   = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/networkInterfaces/db-nic0"
	web     = "antreaplus-t.nic-web"
	db      = "antreaplus-t.nic-db"
)

var tLimits = azLimits{rulesPerNSG: 1000, prefixesPerNSG: 4000, asgsPerNSG: 100, asgsPerNIC: 20}

func tcpFrom(port int32, cidrs ...string) []provider.Rule {
	var out []provider.Rule
	for _, c := range cidrs {
		out = append(out, provider.Rule{Protocol: "tcp", FromPort: port, ToPort: port, CIDR: c})
	}
	return out
}

var openEgress = []provider.Rule{{Protocol: "all", CIDR: "0.0.0.0/0"}, {Protocol: "all", CIDR: "::/0"}}

func group(name string, ingress ...provider.Rule) provider.SecurityGroup {
	return provider.SecurityGroup{Name: name, Ingress: ingress, Egress: openEgress}
}

func specOf(groups []provider.SecurityGroup, attach map[string][]string) provider.SecurityGroupSpec {
	return provider.SecurityGroupSpec{VPCID: tVNet, Prefix: tPrefix, Groups: groups, Attachments: attach}
}

// cloudOf is a cloud with the two interfaces, no security of their own.
func cloudOf() azState {
	return azState{asgs: map[string]*asgState{}, nsgs: map[string]*nsgState{}, nics: map[string]*nicState{
		strings.ToLower(tNIC1): {id: tNIC1}, strings.ToLower(tNIC2): {id: tNIC2}}}
}

// applied is the cloud after plan p ran on cur: what the provider's apply
// would leave, to plan again.
func applied(cur azState, p azPlan) azState {
	for _, a := range p.createASGs {
		cur.asgs[a.name] = &asgState{id: "id-" + a.name, name: a.name}
	}
	for _, g := range p.putNSGs {
		cur.nsgs[g.name] = &nsgState{id: "id-" + g.name, name: g.name, rules: slices.Clone(g.rules), ordered: true}
	}
	for key, w := range p.nics {
		cur.nics[key] = &nicState{id: cur.nics[key].id, nsg: w.nsg, asgs: slices.Clone(w.asgs)}
	}
	for _, g := range p.deleteNSGs {
		delete(cur.nsgs, g.name)
	}
	for _, a := range p.deleteASGs {
		delete(cur.asgs, a.name)
	}
	return cur
}

func writes(p azPlan) int {
	return len(p.createASGs) + len(p.putNSGs) + len(p.nics) + len(p.deleteNSGs) + len(p.deleteASGs)
}

func summary(p azPlan) string {
	var parts []string
	for _, a := range p.createASGs {
		parts = append(parts, "asg+ "+a.name)
	}
	for _, g := range p.putNSGs {
		parts = append(parts, fmt.Sprintf("nsg %s +%d -%d", lastSegment(g.nic), g.added, g.removed))
	}
	for _, key := range sortedKeys(p.nics) {
		w := p.nics[key]
		parts = append(parts, fmt.Sprintf("nic %s nsg=%v asgs=%v", lastSegment(key), w.nsg != "", w.asgs))
	}
	for _, g := range p.deleteNSGs {
		parts = append(parts, "nsg- "+g.name)
	}
	for _, a := range p.deleteASGs {
		parts = append(parts, "asg- "+a.name)
	}
	for _, u := range p.unrealized {
		parts = append(parts, "unrealized "+lastSegment(u.Object)+": "+u.Reason)
	}
	return strings.Join(parts, "\n")
}

func TestPlanNSGs(t *testing.T) {
	webSpec := specOf([]provider.SecurityGroup{group(web, tcpFrom(80, "10.0.0.0/8", "192.168.0.0/16")...)}, map[string][]string{tNIC1: {web}})
	for _, tc := range []struct {
		name string
		// before shapes the cloud; nil: the interfaces alone.
		before func(azState) azState
		spec   provider.SecurityGroupSpec
		lim    azLimits
		want   []string // lines of the summary, in order
	}{
		{
			name: "new group: one ASG, the interface's NSG, the interface",
			spec: webSpec,
			want: []string{"asg+ " + web, "nsg web-nic0 +5 -0", "nic web-nic0 nsg=true asgs=[asg:" + web + "]"},
		},
		{
			name:   "unchanged: nothing to write",
			before: func(s azState) azState { return applied(s, planNSGs(webSpec, s, tLimits)) },
			spec:   webSpec,
		},
		{
			name:   "a port changed: one PUT of the NSG, in place",
			before: func(s azState) azState { return applied(s, planNSGs(webSpec, s, tLimits)) },
			spec:   specOf([]provider.SecurityGroup{group(web, tcpFrom(443, "10.0.0.0/8", "192.168.0.0/16")...)}, map[string][]string{tNIC1: {web}}),
			want:   []string{"nsg web-nic0 +1 -1"},
		},
		{
			name: "drift: a rule added by hand and the NSG detached are reverted",
			before: func(s azState) azState {
				s = applied(s, planNSGs(webSpec, s, tLimits))
				g := s.nsgs[nsgName(tPrefix, tNIC1)]
				g.rules = append(g.rules, nsgRule{inbound: true, protocol: "Tcp", srcPorts: "*", ports: "22", local: "*", peers: "*"})
				s.nics[strings.ToLower(tNIC1)].nsg = ""
				return s
			},
			spec: webSpec,
			want: []string{"nsg web-nic0 +0 -1", "nic web-nic0 nsg=true asgs=[asg:" + web + "]"},
		},
		{
			name: "drift: an allow rule moved after the deny is put back",
			before: func(s azState) azState {
				s = applied(s, planNSGs(webSpec, s, tLimits))
				s.nsgs[nsgName(tPrefix, tNIC1)].ordered = false
				return s
			},
			spec: webSpec,
			want: []string{"nsg web-nic0 +0 -0"},
		},
		{
			name:   "stale: the interface loses its NSG and ASG, both deleted",
			before: func(s azState) azState { return applied(s, planNSGs(webSpec, s, tLimits)) },
			spec:   specOf(nil, nil),
			want:   []string{"nic web-nic0 nsg=false asgs=[]", "nsg- " + nsgName(tPrefix, tNIC1), "asg- " + web},
		},
		{
			name: "unmanaged ASGs of the interface are kept",
			before: func(s azState) azState {
				s.nics[strings.ToLower(tNIC1)].asgs = []string{"id:/x/applicationSecurityGroups/own"}
				return s
			},
			spec: webSpec,
			want: []string{"asg+ " + web, "nsg web-nic0 +5 -0", "nic web-nic0 nsg=true asgs=[id:/x/applicationSecurityGroups/own asg:" + web + "]"},
		},
		{
			name: "an interface with its own NSG cannot get ours",
			before: func(s azState) azState {
				s.nics[strings.ToLower(tNIC1)].nsg = "id:/x/networkSecurityGroups/own"
				return s
			},
			spec: webSpec,
			want: []string{"asg+ " + web, "unrealized web-nic0: the interface carries network security group /x/networkSecurityGroups/own, which AntreaPlus does not manage, and Azure allows one per interface: its rules are not enforced"},
		},
		{
			name: "two interfaces, a group referring to another",
			spec: specOf([]provider.SecurityGroup{
				group(web, tcpFrom(80, "10.0.0.0/8")...),
				group(db, provider.Rule{Protocol: "tcp", FromPort: 5432, ToPort: 5432, Group: web}),
			}, map[string][]string{tNIC1: {web}, tNIC2: {db}}),
			want: []string{"asg+ " + web, "asg+ " + db, "nsg db-nic0 +5 -0", "nsg web-nic0 +5 -0",
				"nic db-nic0 nsg=true asgs=[asg:" + db + "]", "nic web-nic0 nsg=true asgs=[asg:" + web + "]"},
		},
		{
			name: "ICMP types are left out and reported",
			spec: specOf([]provider.SecurityGroup{group(web, provider.Rule{Protocol: "icmp", FromPort: 8, ToPort: 0, CIDR: "10.0.0.0/8"},
				provider.Rule{Protocol: "icmp", FromPort: -1, ToPort: -1, CIDR: "10.1.0.0/16"})}, map[string][]string{tNIC1: {web}}),
			want: []string{"unrealized " + web + ": Azure NSG rules cannot match ICMP types and codes: icmp type 8 code 0 not allowed",
				"asg+ " + web, "nsg web-nic0 +5 -0", "nic web-nic0 nsg=true asgs=[asg:" + web + "]"},
		},
		{
			name:   "a refused group leaves the cloud as it is",
			before: func(s azState) azState { return applied(s, planNSGs(webSpec, s, tLimits)) },
			spec:   specOf([]provider.SecurityGroup{group(web, provider.Rule{Protocol: "sctp", CIDR: "10.0.0.0/8"})}, map[string][]string{tNIC1: {web}}),
			want:   []string{`unrealized ` + web + `: protocol "sctp" is not one of tcp, udp, icmp, icmpv6, all`},
		},
		{
			name: "more rules than an NSG holds",
			spec: webSpec,
			lim:  azLimits{rulesPerNSG: 4, prefixesPerNSG: 4000, asgsPerNSG: 100, asgsPerNIC: 20},
			want: []string{"unrealized web-nic0: 5 security rules exceed the quota of 4 per network security group", "asg+ " + web},
		},
		{
			name: "more ASGs than an IP configuration holds",
			before: func(s azState) azState {
				s.nics[strings.ToLower(tNIC1)].asgs = []string{"id:a", "id:b"}
				return s
			},
			spec: webSpec,
			lim:  azLimits{rulesPerNSG: 1000, prefixesPerNSG: 4000, asgsPerNSG: 100, asgsPerNIC: 2},
			want: []string{"unrealized web-nic0: 3 application security groups exceed the quota of 2 per IP configuration", "asg+ " + web},
		},
		{
			name: "an interface not in the VNet, a name without the prefix",
			spec: specOf([]provider.SecurityGroup{group("other-x")}, map[string][]string{"/x/networkInterfaces/gone": {"other-x"}}),
			want: []string{`unrealized other-x: name does not start with the managed prefix "antreaplus-"`,
				"unrealized gone: network interface not found in VNet " + tVNet},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := cloudOf()
			if tc.before != nil {
				cur = tc.before(cur)
			}
			lim := tLimits
			if tc.lim != (azLimits{}) {
				lim = tc.lim
			}
			p := planNSGs(tc.spec, cur, lim)
			// Unrealized come first in the summary's order of the plan.
			got := summary(p)
			want := strings.Join(tc.want, "\n")
			if !sameLines(got, want) {
				t.Fatalf("plan:\n%s\nwant:\n%s", got, want)
			}
			if again := planNSGs(tc.spec, applied(cur, p), lim); writes(again) != 0 {
				t.Errorf("a second plan after this one still writes:\n%s", summary(again))
			}
		})
	}
}

// sameLines compares summaries as sets of lines: findings come in the
// plan's order, writes in theirs.
func sameLines(a, b string) bool {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func TestMergedRules(t *testing.T) {
	g := group(web, append(tcpFrom(80, "10.0.0.0/8", "192.168.1.0/24", "fd00::/8"), tcpFrom(443, "10.0.0.0/8")...)...)
	p := planNSGs(specOf([]provider.SecurityGroup{g}, map[string][]string{tNIC1: {web}}), cloudOf(), tLimits)
	var got []string
	for _, r := range p.putNSGs[0].rules {
		got = append(got, r.String())
	}
	want := []string{
		"in allow Tcp 443 asg:" + web + " peers 10.0.0.0/8",
		"in allow Tcp 80 asg:" + web + " peers 10.0.0.0/8,192.168.1.0/24",
		"in allow Tcp 80 asg:" + web + " peers fd00::/8",
		"out allow * * asg:" + web + " peers 0.0.0.0/0",
		"out allow * * asg:" + web + " peers ::/0",
		"in deny * * * peers *",
		"out deny * * * peers *",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestNames(t *testing.T) {
	long := tPrefix + strings.Repeat("n", 100)
	for _, tc := range []struct{ got, want string }{
		{asgName(web), web},
		{asgName(long), long[:71] + "-"},
		{nsgName(tPrefix, tNIC1), tPrefix + "web-nic0-"},
	} {
		if !strings.HasPrefix(tc.got, tc.want) || !validAzureName(tc.got) {
			t.Errorf("name %q; want %q... and a valid Azure name", tc.got, tc.want)
		}
	}
	if nsgName(tPrefix, tNIC1) == nsgName(tPrefix, strings.Replace(tNIC1, "/rg/", "/rg2/", 1)) {
		t.Error("interfaces of the same name in two resource groups share an NSG name")
	}
	if checkPrefix("bad prefix") == nil || checkPrefix(tPrefix) != nil {
		t.Error("checkPrefix")
	}
}
