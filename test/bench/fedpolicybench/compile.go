package main

import (
	"fmt"
	"net/netip"
	"runtime"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federatedpolicy/translate"
	"antreaplus.io/antreaplus/pkg/networks"
	"antreaplus.io/antreaplus/pkg/policycompiler"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// The compile world: a member with 100 Namespaces, each with 100
// RemoteEntities (10 roles, from 3 other members), 10 federated policies
// (ingress from a role's remote VMs, egress to the Namespace's federated
// Service; the first of each Namespace also from the VMs of its team's
// Namespaces) and 10 local VMs they apply to.
const (
	compileNamespaces    = 100
	compileRemotePerNS   = 100
	compilePoliciesPerNS = 10
	compileLocalPerNS    = 10
)

type compileWorld struct {
	namespaces map[string]map[string]string
	remote     []federationv1alpha1.RemoteEntity
	services   map[types.NamespacedName]translate.ServiceInput
	policies   []*policyv1alpha1.FederatedNetworkPolicy
	local      []any // policycompiler inputs: Namespaces and local ExternalEntities
}

func newCompileWorld() *compileWorld {
	w := &compileWorld{namespaces: map[string]map[string]string{}, services: map[types.NamespacedName]translate.ServiceInput{}}
	remote, local := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.100.0.1")
	for n := range compileNamespaces {
		ns := fmt.Sprintf("ns-%03d", n)
		labels := map[string]string{"team": fmt.Sprintf("t%d", n%10), "kubernetes.io/metadata.name": ns}
		w.namespaces[ns] = labels
		w.local = append(w.local, &policycompiler.Namespace{Name: ns, Labels: labels})
		for j := range compileRemotePerNS {
			w.remote = append(w.remote, compileRemoteEntity(ns, j, remote))
			remote = remote.Next()
		}
		for j := range compileLocalPerNS {
			w.local = append(w.local, externalEntity(ns, fmt.Sprintf("db-%d", j), local.String(), fmt.Sprintf("vm-%s-%d", ns, j),
				map[string]string{labelApp: "db"}))
			local = local.Next()
		}
		w.services[types.NamespacedName{Namespace: ns, Name: serviceName}] = compileService(ns, n)
		for k := range compilePoliciesPerNS {
			w.policies = append(w.policies, compilePolicy(ns, n, k))
		}
	}
	return w
}

func compileRemoteEntity(ns string, j int, a netip.Addr) federationv1alpha1.RemoteEntity {
	cluster := fmt.Sprintf("member-%d", 1+j%3)
	return federationv1alpha1.RemoteEntity{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s.vm-%d", cluster, j), Labels: map[string]string{
			"tag.cloud.antreaplus.io/role": fmt.Sprintf("r%d", j%10), federationv1alpha1.LabelSourceCluster: cluster,
			federationv1alpha1.MemberLabelPrefix + "region": []string{"eu", "us"}[j%2]}},
		Spec: federationv1alpha1.RemoteEntitySpec{SourceCluster: cluster, SourceName: fmt.Sprintf("vm-%d", j),
			Endpoints: []federationv1alpha1.RemoteEndpoint{{IP: a.String()}}, Network: remoteNetwork,
			Addresses: []federationv1alpha1.EntityAddress{{IP: a.String(), Kind: federationv1alpha1.AddressPrivate, Network: remoteNetwork}}},
	}
}

// compileNetworks are the compile world's Networks: the local entities'
// network, flat to the remote entities' (10.0.0.0/16), to the exporter's
// cluster (its flat-network endpoints, 10.244.0.0/16) and to this member's
// (the cluster-set IPs, 10.96.0.0/16): every remote address is usable, as
// before networks.
func compileNetworks() *networks.Topology {
	prefixes := func(c string) []netip.Prefix { return []netip.Prefix{netip.MustParsePrefix(c)} }
	return networks.NewTopology([]networks.Network{{Name: localNetwork, Prefixes: prefixes("10.100.0.0/16"), Flat: []networks.Flat{
		{Network: remoteNetwork, Prefixes: prefixes("10.0.0.0/16")},
		{Network: federationv1alpha1.ClusterNetworkPrefix + "member-1", Prefixes: prefixes("10.244.0.0/16")},
		{Network: federationv1alpha1.ClusterNetworkPrefix + "member-0", Prefixes: prefixes("10.96.0.0/16")},
	}}})
}

// compileService is a federated Service imported with a cluster-set IP and
// three flat-network endpoints.
func compileService(ns string, n int) translate.ServiceInput {
	imp := &mcsv1beta1.ServiceImport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: serviceName},
		Spec: mcsv1beta1.ServiceImportSpec{Type: mcsv1beta1.ClusterSetIP, IPs: []string{fmt.Sprintf("10.96.%d.%d", n/250, 1+n%250)},
			Ports: []mcsv1beta1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: servicePort}}}}
	slice := discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: serviceName + "-member-1"},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http"), Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To[int32](targetPort)}}}
	for i := range 3 {
		slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{Addresses: []string{fmt.Sprintf("10.244.%d.%d", n, 10+i)},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}})
	}
	return translate.ServiceInput{Import: imp, Slices: []discoveryv1.EndpointSlice{slice}}
}

func compilePolicy(ns string, n, k int) *policyv1alpha1.FederatedNetworkPolicy {
	peer := func(kv ...string) antreav1beta1.NetworkPolicyPeer {
		sel := &metav1.LabelSelector{MatchLabels: map[string]string{}}
		for i := 0; i+1 < len(kv); i += 2 {
			sel.MatchLabels[kv[i]] = kv[i+1]
		}
		return antreav1beta1.NetworkPolicyPeer{ExternalEntitySelector: sel, Scope: antreav1beta1.ScopeClusterSet}
	}
	from := []antreav1beta1.NetworkPolicyPeer{peer("tag.cloud.antreaplus.io/role", fmt.Sprintf("r%d", k))}
	if k == 0 {
		p := peer("tag.cloud.antreaplus.io/role", "r1", federationv1alpha1.MemberLabelPrefix+"region", "us")
		p.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": fmt.Sprintf("t%d", n%10)}}
		from = append(from, p)
	}
	return &policyv1alpha1.FederatedNetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("p-%d", k)},
		Spec: antreav1beta1.NetworkPolicySpec{Tier: policyrules.TierApplication, Priority: float64(1 + k),
			AppliedTo: []antreav1beta1.AppliedTo{{ExternalEntitySelector: &metav1.LabelSelector{MatchLabels: map[string]string{labelApp: "db"}}}},
			Ingress:   []antreav1beta1.Rule{{Action: ptr.To(antreav1beta1.RuleActionAllow), From: from, Ports: tcpPort(portIP)}},
			Egress: []antreav1beta1.Rule{{Action: ptr.To(antreav1beta1.RuleActionAllow),
				ToServices: []antreav1beta1.PeerService{{Name: serviceName, Namespace: ns, Scope: antreav1beta1.ScopeClusterSet}}}},
		},
	}
}

// compileSample is one run: the translation of every federated policy,
// and the compilation of what it derived.
type compileSample struct {
	translate, compile     time.Duration
	policies, groups       int
	addresses, endpoints   int
	compiledRules, notices int
}

// translateAndCompile translates every federated policy from nothing
// (the remote entities indexed, as the member controller's inputs are),
// then compiles the derived policies and Groups with the local entities
// from nothing.
func (w *compileWorld) translateAndCompile() (compileSample, error) {
	var s compileSample
	runtime.GC()
	start := time.Now()
	entityNets := map[string][]string{}
	for ns := range w.namespaces {
		entityNets[ns] = []string{localNetwork}
	}
	in := &translate.Inputs{Member: translate.Member{ClusterID: "member-0", Labels: map[string]string{"region": "eu"}},
		Namespaces: w.namespaces, Entities: translate.NewIndex(w.remote), Services: w.services,
		Networks: compileNetworks(), EntityNetworks: entityNets}
	var derived []any
	for _, p := range w.policies {
		res := translate.Translate(p, in)
		if res.Report.Problem != nil || res.Policy == nil {
			return s, fmt.Errorf("translating %s/%s: %v", p.Namespace, p.Name, res.Report.Problem)
		}
		derived = append(derived, res.Policy)
		for _, g := range res.Groups {
			derived = append(derived, g)
			s.addresses += len(g.Spec.IPBlocks)
		}
		s.groups += len(res.Groups)
		s.notices += len(res.Report.Notes)
	}
	s.translate, s.policies = time.Since(start), len(derived)-s.groups

	runtime.GC()
	start = time.Now()
	c := policycompiler.New()
	if err := c.Upsert(w.local...); err != nil {
		return s, err
	}
	if err := c.Upsert(derived...); err != nil {
		return s, err
	}
	changed := c.Changed()
	s.compile, s.endpoints = time.Since(start), len(changed)
	for _, ep := range changed {
		r, _ := c.Rules(ep)
		s.compiledRules += len(r.Rules)
	}
	return s, nil
}
