package records

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
)

// Names under the test's Input: <svc>.<ns>.<fed>.svc = web.shop.fed.svc.
const fed = "web.shop.fed.svc"

var httpPort = Port{Name: "http", Protocol: "TCP", Port: 80, NodePort: 30080}

func ready(e Exporter) Exporter {
	e.Ready, e.Reachable = true, true
	return e
}

// lb is a ready, reachable LoadBalancer export of port http.
func lb(id, region string, zones []string, ips ...string) Exporter {
	return ready(Exporter{ClusterID: id, Region: region, Zones: zones, Kind: KindLoadBalancer, LoadBalancerIPs: ips, Ports: []Port{httpPort}})
}

// lbHost is a ready, reachable LoadBalancer export with hostnames only.
func lbHost(id, region string, zones []string, hosts ...string) Exporter {
	return ready(Exporter{ClusterID: id, Region: region, Zones: zones, Kind: KindLoadBalancer, LoadBalancerHostnames: hosts, Ports: []Port{httpPort}})
}

// np is a ready, reachable NodePort export of port http with ready nodes "ip@zone".
func np(id, region string, nodes ...string) Exporter {
	e := ready(Exporter{ClusterID: id, Region: region, Kind: KindNodePort, Ports: []Port{httpPort}})
	for _, n := range nodes {
		ip, zone, _ := strings.Cut(n, "@")
		e.NodeAddresses = append(e.NodeAddresses, NodeAddress{IP: ip, Zone: zone, Ready: true})
		if zone != "" && !slices.Contains(e.Zones, zone) {
			e.Zones = append(e.Zones, zone)
		}
	}
	return e
}

func with(e Exporter, f func(*Exporter)) Exporter { f(&e); return e }

func input(exporters ...Exporter) Input {
	return Input{Domain: "example.com", FederationID: "fed", Namespace: "shop", Service: "web", Exporters: exporters}
}

// render is one line per record, "<name> <type> <targets, comma-separated>"
// (the TTL checked apart), then "note <cluster>: <message>" per note.
func render(t *testing.T, r Result, ttl int64) []string {
	t.Helper()
	var out []string
	for _, e := range r.Endpoints {
		if e.RecordTTL != ttl {
			t.Errorf("%s %s: TTL %d, want %d", e.DNSName, e.RecordType, e.RecordTTL, ttl)
		}
		out = append(out, e.DNSName+" "+e.RecordType+" "+strings.Join(e.Targets, ","))
	}
	for _, n := range r.Notes {
		out = append(out, "note "+n.ClusterID+": "+n.Message)
	}
	return out
}

func TestDesired(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Input
		want []string
	}{{
		name: "LB in one member and NodePort in another: A of both, SRV per exporter to its per-cluster names",
		in: input(
			lb("member-1", "", nil, "203.0.113.10"),
			np("member-2", "", "198.51.100.3", "198.51.100.2", "198.51.100.9"),
		),
		want: []string{
			"_http._tcp." + fed + ".example.com SRV 0 50 30080 web.shop.member-2.fed.svc.example.com.,0 50 80 web.shop.member-1.fed.svc.example.com.",
			"web.shop.fed.svc.example.com A 198.51.100.2,198.51.100.3,198.51.100.9,203.0.113.10",
			"web.shop.member-1.fed.svc.example.com A 203.0.113.10",
			"web.shop.member-2.fed.svc.example.com A 198.51.100.2,198.51.100.3,198.51.100.9",
		},
	}, {
		name: "one LB hostname: CNAME, SRV straight to the hostname (an SRV target is no alias)",
		in:   input(lbHost("member-1", "", nil, "LB-1.Elb.Amazonaws.com.")),
		want: []string{
			"_http._tcp." + fed + ".example.com SRV 0 100 80 lb-1.elb.amazonaws.com.",
			"web.shop.fed.svc.example.com CNAME lb-1.elb.amazonaws.com",
		},
	}, {
		name: "the same hostname from two exporters is still one CNAME",
		in: input(
			lbHost("member-1", "", nil, "lb.example.net"),
			lbHost("member-2", "", nil, "lb.example.net"),
		),
		want: []string{
			"_http._tcp." + fed + ".example.com SRV 0 100 80 lb.example.net.",
			"web.shop.fed.svc.example.com CNAME lb.example.net",
		},
	}, {
		name: "several hostnames cannot be one CNAME: left out with a note",
		in: input(
			lbHost("member-1", "", nil, "a.example.net"),
			lbHost("member-2", "", nil, "b.example.net"),
		),
		want: []string{
			"note member-1: load balancer hostnames a.example.net left out of " + fed + ".example.com: a name with several hostnames, or hostnames and IPs, cannot be one CNAME",
			"note member-2: load balancer hostnames b.example.net left out of " + fed + ".example.com: a name with several hostnames, or hostnames and IPs, cannot be one CNAME",
		},
	}, {
		name: "a hostname and an IP: the hostname left out, the IP published",
		in: input(with(lb("member-1", "", nil, "203.0.113.10"), func(e *Exporter) {
			e.LoadBalancerHostnames = []string{"lb.example.net"}
		})),
		want: []string{
			"_http._tcp." + fed + ".example.com SRV 0 100 80 web.shop.member-1.fed.svc.example.com.",
			"web.shop.fed.svc.example.com A 203.0.113.10",
			"web.shop.member-1.fed.svc.example.com A 203.0.113.10",
			"note member-1: load balancer hostnames lb.example.net left out of " + fed + ".example.com: a name with several hostnames, or hostnames and IPs, cannot be one CNAME",
		},
	}, {
		name: "IPv6: AAAA next to A, IPv4-mapped unmapped, duplicates merged",
		in: input(
			lb("member-1", "", nil, "2001:db8::10", "203.0.113.10", "::ffff:203.0.113.11"),
			np("member-2", "", "2001:db8::2", "2001:db8::10"),
		),
		want: []string{
			"_http._tcp." + fed + ".example.com SRV 0 50 30080 web.shop.member-2.fed.svc.example.com.,0 50 80 web.shop.member-1.fed.svc.example.com.",
			"web.shop.fed.svc.example.com A 203.0.113.10,203.0.113.11",
			"web.shop.fed.svc.example.com AAAA 2001:db8::2,2001:db8::10",
			"web.shop.member-1.fed.svc.example.com A 203.0.113.10,203.0.113.11",
			"web.shop.member-1.fed.svc.example.com AAAA 2001:db8::10",
			"web.shop.member-2.fed.svc.example.com AAAA 2001:db8::2,2001:db8::10",
		},
	}, {
		// Two regions; r1 has two zones. The LB is in each zone of its
		// nodes, a node address in its node's zone only; member-3 of r2
		// has a zone named like one of r1's, never mixed with it.
		name: "region and zone names, a zone of another region never mixed",
		in: input(
			lb("member-1", "R1", []string{"z1", "z2"}, "203.0.113.10"),
			np("member-2", "r1", "198.51.100.2@z2", "198.51.100.3@z3"),
			np("member-3", "r2", "192.0.2.5@z1"),
		),
		want: []string{
			"_http._tcp." + fed + ".example.com SRV 0 33 30080 web.shop.member-2.fed.svc.example.com.,0 33 30080 web.shop.member-3.fed.svc.example.com.,0 33 80 web.shop.member-1.fed.svc.example.com.",
			"_http._tcp." + fed + ".r1.example.com SRV 0 50 30080 web.shop.member-2.fed.svc.r1.example.com.,0 50 80 web.shop.member-1.fed.svc.r1.example.com.",
			"_http._tcp." + fed + ".r2.example.com SRV 0 100 30080 web.shop.member-3.fed.svc.r2.example.com.",
			"_http._tcp." + fed + ".z1.r1.example.com SRV 0 100 80 web.shop.member-1.fed.svc.z1.r1.example.com.",
			"_http._tcp." + fed + ".z1.r2.example.com SRV 0 100 30080 web.shop.member-3.fed.svc.z1.r2.example.com.",
			"_http._tcp." + fed + ".z2.r1.example.com SRV 0 50 30080 web.shop.member-2.fed.svc.z2.r1.example.com.,0 50 80 web.shop.member-1.fed.svc.z2.r1.example.com.",
			"_http._tcp." + fed + ".z3.r1.example.com SRV 0 100 30080 web.shop.member-2.fed.svc.z3.r1.example.com.",
			"web.shop.fed.svc.example.com A 192.0.2.5,198.51.100.2,198.51.100.3,203.0.113.10",
			"web.shop.fed.svc.r1.example.com A 198.51.100.2,198.51.100.3,203.0.113.10",
			"web.shop.fed.svc.r2.example.com A 192.0.2.5",
			"web.shop.fed.svc.z1.r1.example.com A 203.0.113.10",
			"web.shop.fed.svc.z1.r2.example.com A 192.0.2.5",
			"web.shop.fed.svc.z2.r1.example.com A 198.51.100.2,203.0.113.10",
			"web.shop.fed.svc.z3.r1.example.com A 198.51.100.3",
			"web.shop.member-1.fed.svc.example.com A 203.0.113.10",
			"web.shop.member-1.fed.svc.r1.example.com A 203.0.113.10",
			"web.shop.member-1.fed.svc.z1.r1.example.com A 203.0.113.10",
			"web.shop.member-1.fed.svc.z2.r1.example.com A 203.0.113.10",
			"web.shop.member-2.fed.svc.example.com A 198.51.100.2,198.51.100.3",
			"web.shop.member-2.fed.svc.r1.example.com A 198.51.100.2,198.51.100.3",
			"web.shop.member-2.fed.svc.z2.r1.example.com A 198.51.100.2",
			"web.shop.member-2.fed.svc.z3.r1.example.com A 198.51.100.3",
			"web.shop.member-3.fed.svc.example.com A 192.0.2.5",
			"web.shop.member-3.fed.svc.r2.example.com A 192.0.2.5",
			"web.shop.member-3.fed.svc.z1.r2.example.com A 192.0.2.5",
		},
	}, {
		name: "a node without a zone is in each of its exporter's zones; a region and a zone with a dot have no name",
		in: input(
			with(np("member-1", "r1", "198.51.100.1@z1", "198.51.100.2", "198.51.100.3@a.b"), func(e *Exporter) { e.Ports = nil }),
			with(lb("member-2", "r.2", []string{"z1"}, "203.0.113.10"), func(e *Exporter) { e.Ports = nil }),
		),
		want: []string{
			"web.shop.fed.svc.example.com A 198.51.100.1,198.51.100.2,198.51.100.3,203.0.113.10",
			"web.shop.fed.svc.r1.example.com A 198.51.100.1,198.51.100.2,198.51.100.3",
			"web.shop.fed.svc.z1.r1.example.com A 198.51.100.1,198.51.100.2",
			`note member-1: zone "a.b" holds a dot: no zone name`,
			`note member-2: region "r.2" holds a dot: no region or zone names`,
		},
	}, {
		name: "unreachable, not ready and opted-out exporters are out; a not-ready node too",
		in: input(
			lb("member-1", "", nil, "203.0.113.10"),
			with(lb("member-2", "", nil, "203.0.113.20"), func(e *Exporter) { e.Reachable = false }),
			with(lb("member-3", "", nil, "203.0.113.30"), func(e *Exporter) { e.Ready = false }),
			with(lb("member-4", "", nil, "203.0.113.40"), func(e *Exporter) { e.OptOut = true }),
			with(np("member-5", "", "198.51.100.1"), func(e *Exporter) {
				e.NodeAddresses = append(e.NodeAddresses, NodeAddress{IP: "198.51.100.2"})
			}),
		),
		want: []string{
			"_http._tcp." + fed + ".example.com SRV 0 50 30080 web.shop.member-5.fed.svc.example.com.,0 50 80 web.shop.member-1.fed.svc.example.com.",
			"web.shop.fed.svc.example.com A 198.51.100.1,203.0.113.10",
			"web.shop.member-1.fed.svc.example.com A 203.0.113.10",
			"web.shop.member-5.fed.svc.example.com A 198.51.100.1",
		},
	}, {
		name: "no exporter counts: no records at all (no fallback)",
		in: input(
			with(lb("member-1", "r1", []string{"z1"}, "203.0.113.10"), func(e *Exporter) { e.Reachable = false }),
			with(np("member-2", "r1", "198.51.100.1@z1"), func(e *Exporter) { e.OptOut = true }),
		),
	}, {
		name: "flat and ClusterIP exports, an LB without ingress, NodePort without ready ExternalIPs: nothing, with notes",
		in: input(
			ready(Exporter{ClusterID: "member-1", Kind: KindOther, Ports: []Port{httpPort}}),
			lb("member-2", "", nil),
			with(np("member-3", "", "198.51.100.1"), func(e *Exporter) { e.NodeAddresses[0].Ready = false }),
			lb("member-4", "", nil, "not-an-ip"),
		),
		want: []string{
			"note member-1: exported over Pod IPs or a ClusterIP, not reachable from outside the members: not published",
			"note member-2: no address reachable from outside (a load balancer's ingress, a ready node's ExternalIP): not published",
			"note member-3: no address reachable from outside (a load balancer's ingress, a ready node's ExternalIP): not published",
			`note member-4: address "not-an-ip" is not an IP address: left out`,
			"note member-4: no address reachable from outside (a load balancer's ingress, a ready node's ExternalIP): not published",
		},
	}, {
		name: "named ports get SRV per name and protocol, unnamed ones none; no per-cluster name without SRV",
		in: input(
			with(lb("member-1", "", nil, "203.0.113.10"), func(e *Exporter) {
				e.Ports = []Port{{Name: "DNS", Protocol: "UDP", Port: 53}, {Name: "dns-tcp", Port: 53}, {Port: 8080, NodePort: 30001}}
			}),
			with(np("member-2", "", "198.51.100.1"), func(e *Exporter) { e.Ports = []Port{{Port: 80, NodePort: 30002}} }),
		),
		want: []string{
			"_dns-tcp._tcp." + fed + ".example.com SRV 0 100 53 web.shop.member-1.fed.svc.example.com.",
			"_dns._udp." + fed + ".example.com SRV 0 100 53 web.shop.member-1.fed.svc.example.com.",
			"web.shop.fed.svc.example.com A 198.51.100.1,203.0.113.10",
			"web.shop.member-1.fed.svc.example.com A 203.0.113.10",
		},
	}, {
		name: "an LB hostname in its own region is a CNAME there, left out of the federation-wide name mixed with IPs",
		in: input(
			lbHost("member-1", "r1", []string{"z1"}, "lb.example.net"),
			np("member-2", "r2", "198.51.100.1@z1"),
		),
		want: []string{
			"_http._tcp." + fed + ".example.com SRV 0 100 30080 web.shop.member-2.fed.svc.example.com.",
			"_http._tcp." + fed + ".r1.example.com SRV 0 100 80 lb.example.net.",
			"_http._tcp." + fed + ".r2.example.com SRV 0 100 30080 web.shop.member-2.fed.svc.r2.example.com.",
			"_http._tcp." + fed + ".z1.r1.example.com SRV 0 100 80 lb.example.net.",
			"_http._tcp." + fed + ".z1.r2.example.com SRV 0 100 30080 web.shop.member-2.fed.svc.z1.r2.example.com.",
			"web.shop.fed.svc.example.com A 198.51.100.1",
			"web.shop.fed.svc.r1.example.com CNAME lb.example.net",
			"web.shop.fed.svc.r2.example.com A 198.51.100.1",
			"web.shop.fed.svc.z1.r1.example.com CNAME lb.example.net",
			"web.shop.fed.svc.z1.r2.example.com A 198.51.100.1",
			"web.shop.member-2.fed.svc.example.com A 198.51.100.1",
			"web.shop.member-2.fed.svc.r2.example.com A 198.51.100.1",
			"web.shop.member-2.fed.svc.z1.r2.example.com A 198.51.100.1",
			"note member-1: load balancer hostnames lb.example.net left out of " + fed + ".example.com: a name with several hostnames, or hostnames and IPs, cannot be one CNAME",
		},
	}, {
		name: "no domain: nothing",
		in:   with2(input(lb("member-1", "", nil, "203.0.113.10")), func(in *Input) { in.Domain = "" }),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := render(t, Desired(tc.in), DefaultTTL)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func with2(in Input, f func(*Input)) Input { f(&in); return in }

func TestDesiredTTLAndNames(t *testing.T) {
	in := input(lb("Member-1", "", nil, "203.0.113.10"))
	in.TTL = 120
	in.Domain = "Example.COM."
	in.FederationID = "Fed"
	got := render(t, Desired(in), 120)
	want := []string{
		"_http._tcp." + fed + ".example.com SRV 0 100 80 web.shop.member-1.fed.svc.example.com.",
		"web.shop.fed.svc.example.com A 203.0.113.10",
		"web.shop.member-1.fed.svc.example.com A 203.0.113.10",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDesiredDeterministic: the exporters' order and duplicates in their
// lists change nothing.
func TestDesiredDeterministic(t *testing.T) {
	a := input(
		lb("member-1", "r1", []string{"z2", "z1"}, "203.0.113.10", "203.0.113.9"),
		np("member-2", "r1", "198.51.100.3@z1", "198.51.100.2@z2"),
	)
	b := input(
		np("member-2", "r1", "198.51.100.2@z2", "198.51.100.3@z1", "198.51.100.2@z2"),
		lb("member-1", "r1", []string{"z1", "z2", "z1"}, "203.0.113.9", "203.0.113.10", "203.0.113.9"),
	)
	ga, gb := Desired(a), Desired(b)
	ja, _ := json.Marshal(ga)
	jb, _ := json.Marshal(gb)
	if string(ja) != string(jb) {
		t.Errorf("order changed the records:\n%s\n%s", ja, jb)
	}
}

func TestOptedOut(t *testing.T) {
	for v, want := range map[string]bool{"false": true, "False": true, " false ": true, "true": false, "": false, "no": false} {
		if got := OptedOut(map[string]string{OptOutAnnotation: v}); got != want {
			t.Errorf("OptedOut(%q) = %v, want %v", v, got, want)
		}
	}
	if OptedOut(nil) {
		t.Error("OptedOut(nil) = true")
	}
}

// TestSpecWireFormat: the spec serializes with ExternalDNS's field names.
func TestSpecWireFormat(t *testing.T) {
	spec := Desired(input(with(lb("member-1", "", nil, "203.0.113.10"), func(e *Exporter) { e.Ports = nil }))).Spec()
	obj := externaldnsv1alpha1.DNSEndpoint{Spec: spec}
	obj.APIVersion, obj.Kind = externaldnsv1alpha1.GroupVersion.String(), "DNSEndpoint"
	obj.Name, obj.Namespace = "web", "shop"
	j, err := json.Marshal(&obj)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"DNSEndpoint","apiVersion":"externaldns.k8s.io/v1alpha1","metadata":{"name":"web","namespace":"shop"},` +
		`"spec":{"endpoints":[{"dnsName":"web.shop.fed.svc.example.com","targets":["203.0.113.10"],"recordType":"A","recordTTL":30}]},"status":{}}`
	if string(j) != want {
		t.Errorf("got  %s\nwant %s", j, want)
	}
	// The spec is a copy: changing it leaves the result alone.
	r := Desired(input(lb("member-1", "", nil, "203.0.113.10")))
	r.Spec().Endpoints[0].Targets[0] = "x"
	if fmt.Sprint(r.Endpoints[0].Targets) == "[x]" {
		t.Error("Spec shares the result's targets")
	}
}
