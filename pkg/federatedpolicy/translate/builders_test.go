package translate

import (
	"fmt"
	"net/netip"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/networks"
)

// Builders with functional modifiers, so each test case says only what matters to it.

type policyMod func(*policyv1alpha1.FederatedNetworkPolicy)

// policy is a federated policy shop/web applied to the VMs app=web.
func policy(mods ...policyMod) *policyv1alpha1.FederatedNetworkPolicy {
	p := &policyv1alpha1.FederatedNetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "uid-web"},
		Spec: antreav1beta1.NetworkPolicySpec{Priority: 1,
			AppliedTo: []antreav1beta1.AppliedTo{{ExternalEntitySelector: selector("app", "web")}}},
	}
	for _, m := range mods {
		m(p)
	}
	return p
}

func named(name string) policyMod {
	return func(p *policyv1alpha1.FederatedNetworkPolicy) { p.Name = name }
}

func ingressFrom(peers ...antreav1beta1.NetworkPolicyPeer) policyMod {
	return func(p *policyv1alpha1.FederatedNetworkPolicy) {
		p.Spec.Ingress = append(p.Spec.Ingress, antreav1beta1.Rule{Action: ptr.To(antreav1beta1.RuleActionAllow), From: peers})
	}
}

func egressToServices(services ...antreav1beta1.PeerService) policyMod {
	return func(p *policyv1alpha1.FederatedNetworkPolicy) {
		p.Spec.Egress = append(p.Spec.Egress, antreav1beta1.Rule{Name: "out", Action: ptr.To(antreav1beta1.RuleActionAllow), ToServices: services})
	}
}

func selector(kv ...string) *metav1.LabelSelector {
	s := &metav1.LabelSelector{MatchLabels: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		s.MatchLabels[kv[i]] = kv[i+1]
	}
	return s
}

func clusterSetEntities(kv ...string) antreav1beta1.NetworkPolicyPeer {
	return antreav1beta1.NetworkPolicyPeer{ExternalEntitySelector: selector(kv...), Scope: antreav1beta1.ScopeClusterSet}
}

func federated(ns, name string) antreav1beta1.PeerService {
	return antreav1beta1.PeerService{Namespace: ns, Name: name, Scope: antreav1beta1.ScopeClusterSet}
}

// remoteEntity is entity name of cluster in ns, labelled app=web.
func remoteEntity(ns, cluster, name string, ips ...string) federationv1alpha1.RemoteEntity {
	e := federationv1alpha1.RemoteEntity{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cluster + "." + name, Labels: map[string]string{"app": "web"}},
		Spec:       federationv1alpha1.RemoteEntitySpec{SourceCluster: cluster, SourceName: name},
	}
	for _, ip := range ips {
		e.Spec.Endpoints = append(e.Spec.Endpoints, federationv1alpha1.RemoteEndpoint{IP: ip})
		e.Spec.Addresses = append(e.Spec.Addresses, federationv1alpha1.EntityAddress{IP: ip, Kind: federationv1alpha1.AddressPrivate, Network: remoteNetwork})
	}
	e.Spec.Network = remoteNetwork
	return e
}

// The networks of the builders' inputs: every remote entity is in
// remoteNetwork, flat-connected to localNetwork, the network of the
// member's ExternalEntities in shop.
const (
	remoteNetwork = "aws.vpc-remote"
	localNetwork  = "azure.vnet-local"
)

func flatTopology() *networks.Topology {
	return networks.NewTopology([]networks.Network{{
		Name:     localNetwork,
		Prefixes: []netip.Prefix{netip.MustParsePrefix("192.168.0.0/16")},
		Flat: []networks.Flat{{Network: remoteNetwork, Prefixes: []netip.Prefix{
			netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}}},
	}})
}

// manyEntities is n entities of member-1 in ns, with consecutive addresses.
func manyEntities(ns string, n int) []federationv1alpha1.RemoteEntity {
	out := make([]federationv1alpha1.RemoteEntity, 0, n)
	a := netip.MustParseAddr("10.0.0.1")
	for i := range n {
		out = append(out, remoteEntity(ns, "member-1", fmt.Sprintf("vm-%d", i), a.String()))
		a = a.Next()
	}
	return out
}

func inputs(entities ...federationv1alpha1.RemoteEntity) *Inputs {
	return &Inputs{Member: Member{ClusterID: "member-2"}, Namespaces: map[string]map[string]string{"shop": nil},
		Entities: NewIndex(entities), Networks: flatTopology(), EntityNetworks: map[string][]string{"shop": {localNetwork}}}
}

// checkValid fails the test when a result breaks a limit of the CRDs or
// their naming rules.
func checkValid(t *testing.T, res Result) {
	t.Helper()
	if res.Policy == nil {
		return
	}
	names := map[string]bool{}
	checkName(t, res.Policy.Name)
	rules := append(append([]antreav1beta1.Rule{}, res.Policy.Spec.Ingress...), res.Policy.Spec.Egress...)
	for _, r := range rules {
		if names[r.Name] || r.Name == "" {
			t.Errorf("rule name %q empty or used twice", r.Name)
		}
		names[r.Name] = true
		if len(r.From) > maxPeers || len(r.To) > maxPeers || len(r.Ports) > maxPorts {
			t.Errorf("rule %s: %d from, %d to, %d ports", r.Name, len(r.From), len(r.To), len(r.Ports))
		}
	}
	if len(res.Policy.Spec.Ingress) > maxRules || len(res.Policy.Spec.Egress) > maxRules {
		t.Errorf("%d ingress and %d egress rules", len(res.Policy.Spec.Ingress), len(res.Policy.Spec.Egress))
	}
	for _, g := range res.Groups {
		checkName(t, g.Name)
		if len(g.Spec.IPBlocks) > maxIPBlocks {
			t.Errorf("group %s holds %d ipBlocks", g.Name, len(g.Spec.IPBlocks))
		}
	}
}

func checkName(t *testing.T, name string) {
	t.Helper()
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		t.Errorf("name %q: %v", name, errs)
	}
}
