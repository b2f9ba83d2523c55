package trace

import (
	"fmt"
	"strings"

	tfv1beta1 "antreaplus.io/antreaplus/api/antrea/traceflow/v1beta1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// PodEnd is a Pod at one end of a flow, to be traced by Antrea's Traceflow
// in its member.
type PodEnd struct {
	Namespace, Name string
}

// TraceflowPlan is one Traceflow to create in a member that runs Antrea,
// and which ends' legs it decides.
type TraceflowPlan struct {
	Member string
	Spec   tfv1beta1.TraceflowSpec
	// Source and Destination: the Traceflow decides the source's egress,
	// the destination's ingress (both: one packet from a Pod to a Pod of
	// the same member).
	Source, Destination bool
}

// Traceflows plans the Traceflows that have Antrea decide the Pod legs of
// a flow computed as res (its addresses as the destination sees them):
// a packet injected at a source Pod (towards the destination Pod of the
// same member, or the address the packet carries); for a destination Pod
// with no source Pod of its member, live only, the first real packet from
// the source's address. A Pod leg that no Traceflow can decide gets, in
// srcWhy or dstWhy, the reason.
func Traceflows(src, dst Workload, res Result, protocol policyrules.Protocol, port int32, live bool,
	timeoutSeconds int32) (plans []TraceflowPlan, srcWhy, dstWhy string) {
	if !res.Source.IsValid() || !res.Destination.IsValid() {
		return nil, "", ""
	}
	packet := traceflowPacket(protocol, port, res.Source.Is6())
	if src.Pod != nil {
		p := TraceflowPlan{Member: src.Member, Source: true, Spec: tfv1beta1.TraceflowSpec{Timeout: timeoutSeconds, Packet: packet,
			Source: tfv1beta1.Source{Namespace: src.Pod.Namespace, Pod: src.Pod.Name}}}
		if dst.Pod != nil && dst.Member == src.Member {
			p.Destination = true
			p.Spec.Destination = tfv1beta1.Destination{Namespace: dst.Pod.Namespace, Pod: dst.Pod.Name}
		} else {
			p.Spec.Destination = tfv1beta1.Destination{IP: res.Destination.String()}
		}
		plans = append(plans, p)
		if p.Destination {
			return plans, "", ""
		}
	}
	switch {
	case dst.Pod == nil:
	case src.Pod != nil:
		dstWhy = "Antrea traces a packet from outside " + dst.Member + "'s Pods only live, and a packet injected at a Pod of " +
			src.Member + " is not sent out of it: trace from a VM with --live to see this leg"
	case !live:
		dstWhy = "Antrea's Traceflow injects packets at Pods only: with --live it traces the real packet from " + res.Source.String()
	default:
		plans = append(plans, TraceflowPlan{Member: dst.Member, Destination: true, Spec: tfv1beta1.TraceflowSpec{
			Timeout: timeoutSeconds, Packet: packet, LiveTraffic: true,
			Source:      tfv1beta1.Source{IP: res.Source.String()},
			Destination: tfv1beta1.Destination{Namespace: dst.Pod.Namespace, Pod: dst.Pod.Name}}})
	}
	return plans, "", dstWhy
}

// traceflowPacket is a Traceflow's packet of protocol to port: a TCP SYN,
// a UDP datagram, an SCTP packet.
func traceflowPacket(protocol policyrules.Protocol, port int32, v6 bool) tfv1beta1.Packet {
	var pkt tfv1beta1.Packet
	proto := tfv1beta1.ProtocolTCP
	switch protocol {
	case policyrules.ProtocolUDP:
		proto = tfv1beta1.ProtocolUDP
		pkt.TransportHeader.UDP = &tfv1beta1.UDPHeader{DstPort: port}
	case policyrules.ProtocolSCTP:
		proto = tfv1beta1.ProtocolSCTP
	default:
		syn := tfv1beta1.TCPFlagSYN
		pkt.TransportHeader.TCP = &tfv1beta1.TCPHeader{DstPort: port, Flags: &syn}
	}
	if v6 {
		pkt.IPv6Header = &tfv1beta1.IPv6Header{NextHeader: &proto}
	} else {
		pkt.IPHeader = &tfv1beta1.IPHeader{Protocol: proto}
	}
	return pkt
}

// FromTraceflow is the decision at a Pod's point in direction dir that
// Antrea's Traceflow reports (by names the Traceflow): the packet dropped
// or rejected by the NetworkPolicy observation of that direction (with
// the policy and rule Antrea names; a default rule of that direction's
// table: a Kubernetes NetworkPolicy isolates the Pod and no rule allows),
// forwarded by one (the rule that allowed it), or by none (no rule:
// default allow), or dropped by another part of the datapath. A Traceflow
// that failed or has not ended is undecided, saying why.
func FromTraceflow(st tfv1beta1.TraceflowStatus, dir policyrules.Direction, by string) Decision {
	d := Decision{By: by}
	switch st.Phase {
	case tfv1beta1.PhaseSucceeded:
	case tfv1beta1.PhaseFailed:
		d.Result, d.Note = Undecided, "Antrea's Traceflow failed: "+st.Reason
		return d
	default:
		d.Result, d.Note = Undecided, fmt.Sprintf("Antrea's Traceflow has not ended (phase %q)", st.Phase)
		return d
	}
	prefix := "Egress"
	if dir == policyrules.DirectionIngress {
		prefix = "Ingress"
	}
	var other *tfv1beta1.Observation
	for _, r := range st.Results {
		for i, o := range r.Observations {
			if o.Component != tfv1beta1.ComponentNetworkPolicy {
				if (o.Action == tfv1beta1.ActionDropped || o.Action == tfv1beta1.ActionRejected) && other == nil {
					other = &r.Observations[i]
				}
				continue
			}
			if !strings.HasPrefix(o.ComponentInfo, prefix) {
				continue
			}
			return policyDecision(d, o, dir)
		}
	}
	if other != nil {
		d.Result = Dropped
		if other.Action == tfv1beta1.ActionRejected {
			d.Result = Rejected
		}
		d.Note = fmt.Sprintf("%s by Antrea's %s", strings.ToLower(string(other.Action)), other.Component)
		if other.ComponentInfo != "" {
			d.Note += " (" + other.ComponentInfo + ")"
		}
		return d
	}
	d.Result, d.Note = Allowed, "no rule: default allow (Antrea observed no policy decide the packet)"
	return d
}

// policyDecision is the decision of one NetworkPolicy observation.
func policyDecision(d Decision, o tfv1beta1.Observation, dir policyrules.Direction) Decision {
	switch o.Action {
	case tfv1beta1.ActionDropped:
		d.Result = Dropped
	case tfv1beta1.ActionRejected:
		d.Result = Rejected
	default:
		d.Result = Allowed
	}
	if o.NetworkPolicy == "" {
		switch {
		case d.Result == Allowed:
			d.Note = "allowed by a rule Antrea did not name"
		case strings.HasSuffix(o.ComponentInfo, "DefaultRule"):
			d.Note = "isolated: default deny (a Kubernetes NetworkPolicy selects the Pod and none of its rules allows the packet)"
		default:
			d.Note = "dropped by a rule Antrea did not name (" + o.ComponentInfo + ")"
		}
		return d
	}
	action := policyrules.ActionAllow
	switch d.Result {
	case Dropped:
		action = policyrules.ActionDrop
	case Rejected:
		action = policyrules.ActionReject
	}
	d.Rule = &Rule{Policy: o.NetworkPolicy, Name: o.NetworkPolicyRule, Action: action, Dir: dir, Index: -1}
	return d
}
