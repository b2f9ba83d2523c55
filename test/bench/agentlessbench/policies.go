package main

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
)

// The policies: every application (vmsPerApp VMs tagged app=<name>) has
// five Antrea NetworkPolicies in its account's Namespace, the zero-trust
// pattern of a VM estate:
//
//	0 web          application tier: HTTPS from the corporate range (an ipBlock with an except)
//	1 upstream     application tier: TCP 8080 from the VMs of the previous application
//	2 monitoring   application tier: TCP 9100 and ICMP from the monitoring VMs
//	3 egress       application tier: TCP 5432 to the next application, DNS to the resolver
//	4 default-deny baseline tier: drop everything else, both ways (reject egress, one app in ten)
//
// Policy p is of application p mod apps and kind (p div apps) mod 5. The
// web policy of the first application is replaced by one that admits 200
// partner addresses to a single VM, more rules than an AWS security group
// holds (60): it must be reported Unrealized, not dropped.
const (
	vmsPerApp = 5
	kinds     = 5
	// partnerPeers is the size of the oversized rule.
	partnerPeers = 200
	// changedPort is the port the changed policy gains.
	changedPort = 8443
)

// tagSelector selects ExternalEntities by the label of a cloud tag.
func tagSelector(key, value string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{inventory.TagLabelPrefix + key: value}}
}

func tcp(port int) antreav1beta1.NetworkPolicyPort {
	p := intstr.FromInt32(int32(port))
	proto := corev1.ProtocolTCP
	return antreav1beta1.NetworkPolicyPort{Protocol: &proto, Port: &p}
}

func udp(port int) antreav1beta1.NetworkPolicyPort {
	p := tcp(port)
	proto := corev1.ProtocolUDP
	p.Protocol = &proto
	return p
}

func action(a antreav1beta1.RuleAction) *antreav1beta1.RuleAction { return &a }

// policies returns the n policies of namespace ns over apps applications.
func policies(ns string, n, apps int) []*antreav1beta1.NetworkPolicy {
	out := make([]*antreav1beta1.NetworkPolicy, 0, n)
	for p := range n {
		out = append(out, policy(ns, p, apps))
	}
	return out
}

// policy is policy number p.
func policy(ns string, p, apps int) *antreav1beta1.NetworkPolicy {
	k, kind, round := p%apps, (p/apps)%kinds, p/(apps*kinds)
	app := appName(k)
	np := &antreav1beta1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-%s-%d", app, kindNames[kind], round)},
		Spec: antreav1beta1.NetworkPolicySpec{Priority: float64(10 + kind + round*kinds),
			AppliedTo: []antreav1beta1.AppliedTo{{ExternalEntitySelector: tagSelector("app", app)}}},
	}
	spec := &np.Spec
	switch kind {
	case 0:
		if p == 0 {
			return partners(np)
		}
		spec.Ingress = []antreav1beta1.Rule{{Name: "https", Action: action(antreav1beta1.RuleActionAllow), Ports: []antreav1beta1.NetworkPolicyPort{tcp(443 + round)},
			From: []antreav1beta1.NetworkPolicyPeer{{IPBlock: &antreav1beta1.IPBlock{CIDR: "192.168.0.0/16", Except: []string{"192.168.99.0/24"}}}}}}
	case 1:
		spec.Ingress = []antreav1beta1.Rule{{Name: "from-upstream", Action: action(antreav1beta1.RuleActionAllow), Ports: []antreav1beta1.NetworkPolicyPort{tcp(8080 + round)},
			From: []antreav1beta1.NetworkPolicyPeer{{ExternalEntitySelector: tagSelector("app", appName((k+apps-1)%apps))}}}}
	case 2:
		spec.Ingress = []antreav1beta1.Rule{{Name: "monitoring", Action: action(antreav1beta1.RuleActionAllow), Ports: []antreav1beta1.NetworkPolicyPort{tcp(9100 + round)},
			Protocols: []antreav1beta1.NetworkPolicyProtocol{{ICMP: &antreav1beta1.ICMPProtocol{}}},
			From:      []antreav1beta1.NetworkPolicyPeer{{ExternalEntitySelector: tagSelector("role", "monitoring")}}}}
	case 3:
		spec.Egress = []antreav1beta1.Rule{
			{Name: "to-database", Action: action(antreav1beta1.RuleActionAllow), Ports: []antreav1beta1.NetworkPolicyPort{tcp(5432 + round)},
				To: []antreav1beta1.NetworkPolicyPeer{{ExternalEntitySelector: tagSelector("app", appName((k+1)%apps))}}},
			{Name: "dns", Action: action(antreav1beta1.RuleActionAllow), Ports: []antreav1beta1.NetworkPolicyPort{udp(53), tcp(53)},
				To: []antreav1beta1.NetworkPolicyPeer{{IPBlock: &antreav1beta1.IPBlock{CIDR: "169.254.169.253/32"}}}},
		}
	case 4:
		spec.Tier = "baseline"
		egress := antreav1beta1.RuleActionDrop
		if k%10 == 0 {
			egress = antreav1beta1.RuleActionReject
		}
		spec.Ingress = []antreav1beta1.Rule{{Name: "deny-in", Action: action(antreav1beta1.RuleActionDrop)}}
		spec.Egress = []antreav1beta1.Rule{{Name: "deny-out", Action: action(egress)}}
	}
	return np
}

var kindNames = [kinds]string{"web", "upstream", "monitoring", "egress", "default-deny"}

// partners admits partnerPeers addresses, none adjacent, to the one VM
// tagged partners=yes.
func partners(np *antreav1beta1.NetworkPolicy) *antreav1beta1.NetworkPolicy {
	np.Name = "partners"
	np.Spec.AppliedTo = []antreav1beta1.AppliedTo{{ExternalEntitySelector: tagSelector("partners", "yes")}}
	rule := antreav1beta1.Rule{Name: "partners", Action: action(antreav1beta1.RuleActionAllow), Ports: []antreav1beta1.NetworkPolicyPort{tcp(443)}}
	for j := range partnerPeers {
		cidr := fmt.Sprintf("100.%d.%d.1/32", 64+j/128, (2*j)%256)
		rule.From = append(rule.From, antreav1beta1.NetworkPolicyPeer{IPBlock: &antreav1beta1.IPBlock{CIDR: cidr}})
	}
	np.Spec.Ingress = []antreav1beta1.Rule{rule}
	return np
}

// withPort is np with one more port on its first rule: the one-policy
// change.
func withPort(np *antreav1beta1.NetworkPolicy, port int) *antreav1beta1.NetworkPolicy {
	out := np.DeepCopy()
	rules := out.Spec.Ingress
	if len(rules) == 0 {
		rules = out.Spec.Egress
	}
	rules[0].Ports = append(rules[0].Ports, tcp(port))
	return out
}
