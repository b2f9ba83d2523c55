package trace

import (
	"net/netip"
	"strings"
	"testing"

	tfv1beta1 "antreaplus.io/antreaplus/api/antrea/traceflow/v1beta1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

func pod(member, ns, name, ip string) Workload {
	return Workload{Member: member, Name: "Pod " + ns + "/" + name, Addresses: []Address{addr(ip, "")},
		Elsewhere: "Antrea enforces it", Pod: &PodEnd{Namespace: ns, Name: name}}
}

func observed(phase tfv1beta1.TraceflowPhase, reason string, obs ...tfv1beta1.Observation) tfv1beta1.TraceflowStatus {
	return tfv1beta1.TraceflowStatus{Phase: phase, Reason: reason,
		Results: []tfv1beta1.NodeResult{{Node: "node-1", Role: "Sender", Observations: obs}}}
}

func npObs(table string, action tfv1beta1.Action, policy, rule string) tfv1beta1.Observation {
	return tfv1beta1.Observation{Component: tfv1beta1.ComponentNetworkPolicy, ComponentInfo: table, Action: action,
		NetworkPolicy: policy, NetworkPolicyRule: rule}
}

var (
	spoofOK   = tfv1beta1.Observation{Component: tfv1beta1.ComponentSpoofGuard, Action: tfv1beta1.ActionForwarded}
	delivered = tfv1beta1.Observation{Component: tfv1beta1.ComponentForwarding, ComponentInfo: "Output", Action: tfv1beta1.ActionDelivered}
	outOfNet  = tfv1beta1.Observation{Component: tfv1beta1.ComponentForwarding, ComponentInfo: "Output", Action: tfv1beta1.ActionForwardedOutOfNetwork}
)

func TestFromTraceflow(t *testing.T) {
	const anp = "AntreaNetworkPolicy:shop/web"
	for _, tc := range []struct {
		name     string
		st       tfv1beta1.TraceflowStatus
		dir      policyrules.Direction
		want     Verdict
		rule     string // Rule.String(), "" for none
		noteHas  string
		undecide bool
	}{
		{name: "egress allowed by a named rule", dir: out, want: Allowed,
			st:   observed(tfv1beta1.PhaseSucceeded, "", spoofOK, npObs(tfv1beta1.TableEgressRule, tfv1beta1.ActionForwarded, anp, "to-db"), outOfNet),
			rule: anp + ", Egress rule (to-db): Allow"},
		{name: "egress dropped by a rule", dir: out, want: Dropped,
			st:   observed(tfv1beta1.PhaseSucceeded, "", spoofOK, npObs(tfv1beta1.TableEgressMetric, tfv1beta1.ActionDropped, anp, "deny-rest")),
			rule: anp + ", Egress rule (deny-rest): Drop"},
		{name: "ingress rejected by a cluster policy", dir: in, want: Rejected,
			st: observed(tfv1beta1.PhaseSucceeded, "", spoofOK,
				npObs(tfv1beta1.TableIngressMetric, tfv1beta1.ActionRejected, "AntreaClusterNetworkPolicy:isolate", "reject-all")),
			rule: "AntreaClusterNetworkPolicy:isolate, Ingress rule (reject-all): Reject"},
		{name: "ingress isolated by a Kubernetes NetworkPolicy", dir: in, want: Dropped,
			st:      observed(tfv1beta1.PhaseSucceeded, "", spoofOK, npObs(tfv1beta1.TableIngressDefault, tfv1beta1.ActionDropped, "", "")),
			noteHas: "isolated: default deny"},
		{name: "the other direction's observation does not decide", dir: in, want: Allowed,
			st:      observed(tfv1beta1.PhaseSucceeded, "", spoofOK, npObs(tfv1beta1.TableEgressRule, tfv1beta1.ActionForwarded, anp, "to-db"), delivered),
			noteHas: "no rule: default allow"},
		{name: "no policy observed: default allow", dir: out, want: Allowed,
			st: observed(tfv1beta1.PhaseSucceeded, "", spoofOK, outOfNet), noteHas: "no rule: default allow"},
		{name: "dropped by spoof guard", dir: out, want: Dropped,
			st:      observed(tfv1beta1.PhaseSucceeded, "", tfv1beta1.Observation{Component: tfv1beta1.ComponentSpoofGuard, Action: tfv1beta1.ActionDropped}),
			noteHas: "dropped by Antrea's SpoofGuard"},
		{name: "failed", dir: out, want: Undecided, st: observed(tfv1beta1.PhaseFailed, "Traceflow timeout"),
			noteHas: "Antrea's Traceflow failed: Traceflow timeout"},
		{name: "still running", dir: out, want: Undecided, st: observed(tfv1beta1.PhaseRunning, ""), noteHas: `has not ended (phase "Running")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := FromTraceflow(tc.st, tc.dir, "Antrea's Traceflow tf-1 in member-1")
			if d.Result != tc.want {
				t.Errorf("verdict %q, want %q (note %q)", d.Result, tc.want, d.Note)
			}
			got := ""
			if d.Rule != nil {
				got = d.Rule.String()
			}
			if got != tc.rule {
				t.Errorf("rule %q, want %q", got, tc.rule)
			}
			if !strings.Contains(d.Note, tc.noteHas) {
				t.Errorf("note %q, want it to say %q", d.Note, tc.noteHas)
			}
		})
	}
}

func TestTraceflows(t *testing.T) {
	web, db := pod("member-1", "shop", "web-0", "10.10.0.5"), pod("member-1", "shop", "db-0", "10.10.0.6")
	far := pod("member-2", "shop", "db-0", "10.20.0.6")
	box := vm("member-2", "build-1", "vpc-a", nil, addr("10.40.0.5", AddressPrivate))
	leg := func(a, b string) Result {
		return Result{Source: netip.MustParseAddr(a), Destination: netip.MustParseAddr(b)}
	}
	for _, tc := range []struct {
		name           string
		src, dst       Workload
		res            Result
		live           bool
		want           []TraceflowPlan
		srcWhy, dstWhy string
	}{
		{name: "a Pod to a Pod of its member: one injected packet decides both legs", src: web, dst: db, res: leg("10.10.0.5", "10.10.0.6"),
			want: []TraceflowPlan{{Member: "member-1", Source: true, Destination: true, Spec: tfv1beta1.TraceflowSpec{
				Source: tfv1beta1.Source{Namespace: "shop", Pod: "web-0"}, Destination: tfv1beta1.Destination{Namespace: "shop", Pod: "db-0"}}}}},
		{name: "a Pod to a VM: injected towards the address the packet carries", src: web, dst: box, res: leg("198.51.100.1", "10.40.0.5"),
			want: []TraceflowPlan{{Member: "member-1", Source: true, Spec: tfv1beta1.TraceflowSpec{
				Source: tfv1beta1.Source{Namespace: "shop", Pod: "web-0"}, Destination: tfv1beta1.Destination{IP: "10.40.0.5"}}}}},
		{name: "a VM to a Pod, computed: Antrea injects at Pods only", src: box, dst: db, res: leg("10.40.0.5", "10.10.0.6"),
			dstWhy: "with --live it traces the real packet from 10.40.0.5"},
		{name: "a VM to a Pod, live: the real packet from the source's address", src: box, dst: db, res: leg("203.0.113.9", "10.10.0.6"), live: true,
			want: []TraceflowPlan{{Member: "member-1", Destination: true, Spec: tfv1beta1.TraceflowSpec{LiveTraffic: true,
				Source: tfv1beta1.Source{IP: "203.0.113.9"}, Destination: tfv1beta1.Destination{Namespace: "shop", Pod: "db-0"}}}}},
		{name: "a Pod to a Pod of another member: the source's leg only", src: web, dst: far, res: leg("10.10.0.5", "10.20.0.6"), live: true,
			want: []TraceflowPlan{{Member: "member-1", Source: true, Spec: tfv1beta1.TraceflowSpec{
				Source: tfv1beta1.Source{Namespace: "shop", Pod: "web-0"}, Destination: tfv1beta1.Destination{IP: "10.20.0.6"}}}},
			dstWhy: "is not sent out of it"},
		{name: "no Pod: nothing for Antrea", src: box, dst: box, res: leg("10.40.0.5", "10.40.0.5")},
		{name: "unreachable: nothing to send", src: web, dst: box, res: Result{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plans, srcWhy, dstWhy := Traceflows(tc.src, tc.dst, tc.res, policyrules.ProtocolTCP, 5432, tc.live, 7)
			if len(plans) != len(tc.want) {
				t.Fatalf("%d Traceflows %+v, want %d", len(plans), plans, len(tc.want))
			}
			for i, p := range plans {
				w := tc.want[i]
				if p.Member != w.Member || p.Source != w.Source || p.Destination != w.Destination || p.Spec.Source != w.Spec.Source ||
					p.Spec.Destination != w.Spec.Destination || p.Spec.LiveTraffic != w.Spec.LiveTraffic {
					t.Errorf("Traceflow %d: %+v, want %+v", i, p, w)
				}
				tcp := p.Spec.Packet.TransportHeader.TCP
				if p.Spec.Timeout != 7 || p.Spec.Packet.IPHeader == nil || p.Spec.Packet.IPHeader.Protocol != tfv1beta1.ProtocolTCP ||
					tcp == nil || tcp.DstPort != 5432 || tcp.Flags == nil || *tcp.Flags != tfv1beta1.TCPFlagSYN {
					t.Errorf("Traceflow %d: packet %+v, timeout %d: want a TCP SYN to 5432, 7 s", i, p.Spec.Packet, p.Spec.Timeout)
				}
			}
			if !strings.Contains(srcWhy, tc.srcWhy) || (tc.srcWhy == "") != (srcWhy == "") {
				t.Errorf("source's reason %q, want %q", srcWhy, tc.srcWhy)
			}
			if !strings.Contains(dstWhy, tc.dstWhy) || (tc.dstWhy == "") != (dstWhy == "") {
				t.Errorf("destination's reason %q, want %q", dstWhy, tc.dstWhy)
			}
		})
	}
}

func TestTraceflowPacket(t *testing.T) {
	udp := traceflowPacket(policyrules.ProtocolUDP, 53, false)
	if udp.IPHeader.Protocol != tfv1beta1.ProtocolUDP || udp.TransportHeader.UDP.DstPort != 53 || udp.TransportHeader.TCP != nil {
		t.Errorf("UDP packet %+v", udp)
	}
	v6 := traceflowPacket(policyrules.ProtocolTCP, 443, true)
	if v6.IPHeader != nil || v6.IPv6Header == nil || *v6.IPv6Header.NextHeader != tfv1beta1.ProtocolTCP {
		t.Errorf("IPv6 packet %+v", v6)
	}
}

func TestDelegatedStep(t *testing.T) {
	src := pod("member-1", "shop", "web-0", "10.10.0.5")
	src.Network = "cluster.member-1"
	dst := vm("member-1", "db-1", "cluster.member-1", []policyrules.CompiledRule{rule(in, policyrules.ActionAllow)}, addr("10.10.0.9", AddressPrivate))
	d := FromTraceflow(observed(tfv1beta1.PhaseSucceeded, "", npObs(tfv1beta1.TableEgressMetric, tfv1beta1.ActionDropped,
		"AntreaNetworkPolicy:shop/fnp-web", "egress-0")), out, "Antrea's Traceflow tf-1 in member-1")
	d.Rule.Federated = "shop/web"
	src.Delegated = &d
	res := Compute(Query{Source: src, Destination: dst, Protocol: policyrules.ProtocolTCP, Port: 5432})
	if res.Verdict != Dropped {
		t.Fatalf("verdict %q, want dropped: %+v", res.Verdict, res.Steps)
	}
	egress := res.Steps[len(res.Steps)-1]
	want := "Pod shop/web-0: AntreaNetworkPolicy:shop/fnp-web, Egress rule (egress-0): Drop, derived from FederatedNetworkPolicy shop/web " +
		"(decided by Antrea's Traceflow tf-1 in member-1)"
	if egress.Kind != StepEgress || egress.Note != want {
		t.Errorf("egress step %+v, want the note %q", egress, want)
	}
	// Not answered: undecided, saying why and who enforces.
	src.Delegated = &Decision{Result: Undecided, Note: "Antrea does not run in member-1 (no traceflows.crd.antrea.io)"}
	res = Compute(Query{Source: src, Destination: dst, Protocol: policyrules.ProtocolTCP, Port: 5432})
	if res.Verdict != Undecided || res.Steps[1].Note != "Pod shop/web-0: Antrea does not run in member-1 (no traceflows.crd.antrea.io)" {
		t.Errorf("not answered: %q %+v", res.Verdict, res.Steps)
	}
}
