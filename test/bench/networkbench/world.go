package main

import (
	"fmt"
	"net/netip"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federatedpolicy/translate"
	"antreaplus.io/antreaplus/pkg/networks"
)

// The world: 100 Namespaces, each with 100 remote entities (10 roles, from
// 3 other members) and 10 federated policies (ingress from a role's remote
// entities, egress to another's; every other policy also applied to Pods).
const (
	namespaces    = 100
	entitiesPerNS = 100
	policiesPerNS = 10
	// localNetwork is the enforcing entities' network, clusterNetwork the
	// Pods'.
	localNetwork   = "azure.local"
	clusterNetwork = "cluster.member-0"
)

type world struct {
	nets       int
	namespaces map[string]map[string]string
	entities   []federationv1alpha1.RemoteEntity
	policies   []*policyv1alpha1.FederatedNetworkPolicy
	topology   []federationv1alpha1.Network
}

// newWorld spreads the remote entities over nets networks: with one, it is
// flat to every enforcement point; with more, the first half are flat to
// the entities' network (ranges 10.<k>.0.0/16) and the second half are
// behind a NAT gateway each, their ranges all 10.200.0.0/16, which is also
// the range of the enforcing network (an overlapping estate).
func newWorld(nets int) *world {
	w := &world{nets: nets, namespaces: map[string]map[string]string{}}
	w.topology = w.networks()
	counters := make([]netip.Addr, nets)
	for k := range counters {
		counters[k] = netip.PrefixFrom(w.rangeOf(k).Addr(), 32).Addr().Next()
	}
	for n := range namespaces {
		ns := fmt.Sprintf("ns-%03d", n)
		w.namespaces[ns] = map[string]string{"team": fmt.Sprintf("t%d", n%10)}
		for j := range entitiesPerNS {
			k := (n*entitiesPerNS + j) % nets
			w.entities = append(w.entities, w.entity(ns, j, k, counters[k]))
			counters[k] = counters[k].Next()
		}
		for p := range policiesPerNS {
			w.policies = append(w.policies, policy(ns, p))
		}
	}
	return w
}

func (w *world) name(k int) string { return fmt.Sprintf("aws.vpc-%02d", k) }

// flat reports whether network k is flat to the enforcing networks.
func (w *world) flat(k int) bool { return w.nets == 1 || k < w.nets/2 }

func (w *world) rangeOf(k int) netip.Prefix {
	if w.flat(k) {
		return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(k), 0, 0}), 16)
	}
	return netip.MustParsePrefix("10.200.0.0/16")
}

// networks are the member's Networks: the enforcing network, flat to the
// flat remote networks, and the cluster's (the Pods'), flat to nothing: a
// policy applied to both is copied per network. In the baseline, both are
// flat to the one remote network.
func (w *world) networks() []federationv1alpha1.Network {
	var flat []federationv1alpha1.FlatConnection
	for k := range w.nets {
		if w.flat(k) {
			flat = append(flat, federationv1alpha1.FlatConnection{Network: w.name(k), CIDRs: []string{w.rangeOf(k).String()}})
		}
	}
	local, podsFlat := "10.200.0.0/16", []federationv1alpha1.FlatConnection(nil)
	if w.nets == 1 { // before networks: one flat address space, the same for every point
		local, podsFlat = "192.168.0.0/16", flat
	}
	return []federationv1alpha1.Network{
		{ObjectMeta: metav1.ObjectMeta{Name: localNetwork}, Spec: federationv1alpha1.NetworkSpec{Kind: federationv1alpha1.NetworkCloud, CIDRs: []string{local}, Flat: flat}},
		{ObjectMeta: metav1.ObjectMeta{Name: clusterNetwork}, Spec: federationv1alpha1.NetworkSpec{Kind: federationv1alpha1.NetworkCluster, CIDRs: []string{"10.96.0.0/16"}, Flat: podsFlat}},
	}
}

// entity is remote entity j of ns in network k at a: its private address,
// and, behind NAT, its network's NAT gateway's address as egress; one in
// ten also has a public address.
func (w *world) entity(ns string, j, k int, a netip.Addr) federationv1alpha1.RemoteEntity {
	cluster := fmt.Sprintf("member-%d", 1+j%3)
	e := federationv1alpha1.RemoteEntity{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s.vm-%d", cluster, j), Labels: map[string]string{
			"tag.cloud.antreaplus.io/role": fmt.Sprintf("r%d", j%10), federationv1alpha1.LabelSourceCluster: cluster}},
		Spec: federationv1alpha1.RemoteEntitySpec{SourceCluster: cluster, SourceName: fmt.Sprintf("vm-%d", j), Network: w.name(k),
			Endpoints: []federationv1alpha1.RemoteEndpoint{{IP: a.String()}},
			Addresses: []federationv1alpha1.EntityAddress{{IP: a.String(), Kind: federationv1alpha1.AddressPrivate, Network: w.name(k)}}},
	}
	if !w.flat(k) {
		nat := netip.AddrFrom4([4]byte{198, 18, 0, byte(k)}).String()
		e.Spec.Addresses = append(e.Spec.Addresses, federationv1alpha1.EntityAddress{IP: nat, Kind: federationv1alpha1.AddressEgress, Via: fmt.Sprintf("nat-%02d", k)})
	}
	if j%10 == 0 {
		pub := netip.AddrFrom4([4]byte{198, 19, byte(j), byte(k)}).String()
		e.Spec.Addresses = append(e.Spec.Addresses,
			federationv1alpha1.EntityAddress{IP: pub, Kind: federationv1alpha1.AddressPublic},
			federationv1alpha1.EntityAddress{IP: pub, Kind: federationv1alpha1.AddressEgress, Via: federationv1alpha1.EgressViaPublicIP})
	}
	return e
}

func policy(ns string, p int) *policyv1alpha1.FederatedNetworkPolicy {
	peer := func(role int) antreav1beta1.NetworkPolicyPeer {
		return antreav1beta1.NetworkPolicyPeer{Scope: antreav1beta1.ScopeClusterSet, ExternalEntitySelector: &metav1.LabelSelector{
			MatchLabels: map[string]string{"tag.cloud.antreaplus.io/role": fmt.Sprintf("r%d", role)}}}
	}
	applied := []antreav1beta1.AppliedTo{{ExternalEntitySelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}}
	if p%2 == 1 {
		applied = append(applied, antreav1beta1.AppliedTo{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}})
	}
	return &policyv1alpha1.FederatedNetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("p-%d", p)},
		Spec: antreav1beta1.NetworkPolicySpec{Priority: float64(1 + p), AppliedTo: applied,
			Ingress: []antreav1beta1.Rule{{Action: ptr.To(antreav1beta1.RuleActionAllow), From: []antreav1beta1.NetworkPolicyPeer{peer(p)}}},
			Egress:  []antreav1beta1.Rule{{Action: ptr.To(antreav1beta1.RuleActionAllow), To: []antreav1beta1.NetworkPolicyPeer{peer((p + 1) % 10)}}},
		},
	}
}

// inputs are what the member controller reads for the translations.
func (w *world) inputs() *translate.Inputs {
	entityNets := map[string][]string{}
	for ns := range w.namespaces {
		entityNets[ns] = []string{localNetwork}
	}
	return &translate.Inputs{Member: translate.Member{ClusterID: "member-0"}, Namespaces: w.namespaces,
		Entities: translate.NewIndex(w.entities), Networks: networks.NewTopology(networks.FromAPI(w.topology)),
		ClusterNetwork: clusterNetwork, EntityNetworks: entityNets}
}
