package policycompiler

import (
	"net/netip"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// Builders of test objects: a name and functional modifiers instead of
// long literals.

func labelMap(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func matchLabels(kv ...string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: labelMap(kv...)}
}

type eeOption func(*antreav1alpha2.ExternalEntity)

func newEE(namespace, name, ip string, opts ...eeOption) *antreav1alpha2.ExternalEntity {
	ee := &antreav1alpha2.ExternalEntity{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: antreav1alpha2.ExternalEntitySpec{
			Endpoints:    []antreav1alpha2.Endpoint{{IP: ip}},
			ExternalNode: "vm-" + name,
		},
	}
	for _, o := range opts {
		o(ee)
	}
	return ee
}

func eeLabels(kv ...string) eeOption {
	return func(ee *antreav1alpha2.ExternalEntity) { ee.Labels = labelMap(kv...) }
}

func eeNode(node string) eeOption {
	return func(ee *antreav1alpha2.ExternalEntity) { ee.Spec.ExternalNode = node }
}

func newPod(namespace, name, ip string, kv ...string) *Pod {
	return &Pod{Namespace: namespace, Name: name, Labels: labelMap(kv...), IPs: []netip.Addr{netip.MustParseAddr(ip)}}
}

type ruleOption func(*antreav1beta1.Rule)

func newRule(action antreav1beta1.RuleAction, opts ...ruleOption) antreav1beta1.Rule {
	r := antreav1beta1.Rule{Action: &action}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func ruleName(name string) ruleOption { return func(r *antreav1beta1.Rule) { r.Name = name } }

func fromEEs(kv ...string) ruleOption {
	return func(r *antreav1beta1.Rule) {
		r.From = append(r.From, antreav1beta1.NetworkPolicyPeer{ExternalEntitySelector: matchLabels(kv...)})
	}
}

func toEEs(kv ...string) ruleOption {
	return func(r *antreav1beta1.Rule) {
		r.To = append(r.To, antreav1beta1.NetworkPolicyPeer{ExternalEntitySelector: matchLabels(kv...)})
	}
}

func fromCIDR(cidr string, except ...string) ruleOption {
	return func(r *antreav1beta1.Rule) {
		r.From = append(r.From, antreav1beta1.NetworkPolicyPeer{IPBlock: &antreav1beta1.IPBlock{CIDR: cidr, Except: except}})
	}
}

func tcpPort(port int) ruleOption {
	return func(r *antreav1beta1.Rule) {
		p := intstr.FromInt(port)
		r.Ports = append(r.Ports, antreav1beta1.NetworkPolicyPort{Port: &p})
	}
}

type specOption func(*policySpecFields)

// policySpecFields are the fields NetworkPolicySpec and
// ClusterNetworkPolicySpec share.
type policySpecFields struct {
	tier      string
	appliedTo []antreav1beta1.AppliedTo
	ingress   []antreav1beta1.Rule
	egress    []antreav1beta1.Rule
}

func inTier(tier string) specOption { return func(s *policySpecFields) { s.tier = tier } }

func appliedToEEs(kv ...string) specOption {
	return func(s *policySpecFields) {
		s.appliedTo = append(s.appliedTo, antreav1beta1.AppliedTo{ExternalEntitySelector: matchLabels(kv...)})
	}
}

func ingress(rules ...antreav1beta1.Rule) specOption {
	return func(s *policySpecFields) { s.ingress = append(s.ingress, rules...) }
}

func egress(rules ...antreav1beta1.Rule) specOption {
	return func(s *policySpecFields) { s.egress = append(s.egress, rules...) }
}

func buildSpec(opts []specOption) policySpecFields {
	var s policySpecFields
	for _, o := range opts {
		o(&s)
	}
	return s
}

func newANNP(namespace, name string, priority float64, opts ...specOption) *antreav1beta1.NetworkPolicy {
	s := buildSpec(opts)
	return &antreav1beta1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: antreav1beta1.NetworkPolicySpec{
			Tier: s.tier, Priority: priority, AppliedTo: s.appliedTo, Ingress: s.ingress, Egress: s.egress,
		},
	}
}

func newACNP(name string, priority float64, opts ...specOption) *antreav1beta1.ClusterNetworkPolicy {
	s := buildSpec(opts)
	return &antreav1beta1.ClusterNetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: antreav1beta1.ClusterNetworkPolicySpec{
			Tier: s.tier, Priority: priority, AppliedTo: s.appliedTo, Ingress: s.ingress, Egress: s.egress,
		},
	}
}

func newTier(name string, priority int32) *antreav1beta1.Tier {
	return &antreav1beta1.Tier{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: antreav1beta1.TierSpec{Priority: priority}}
}

func annpRef(namespace, name string) policyrules.PolicyRef {
	return policyrules.PolicyRef{Kind: policyrules.KindNetworkPolicy, Namespace: namespace, Name: name}
}

func acnpRef(name string) policyrules.PolicyRef {
	return policyrules.PolicyRef{Kind: policyrules.KindClusterNetworkPolicy, Name: name}
}
