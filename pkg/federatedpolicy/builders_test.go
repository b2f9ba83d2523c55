package federatedpolicy

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/serviceexport"
)

// Builders of the objects a leader (or a user) writes, with functional
// modifiers for federated policies.

func create(t *testing.T, c client.Client, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := c.Create(t.Context(), o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
}

// remoteEntity is what a leader writes for entity name of cluster.
func remoteEntity(ns, cluster, name, role, ip string) *federationv1alpha1.RemoteEntity {
	return &federationv1alpha1.RemoteEntity{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cluster + "." + name, Labels: map[string]string{
			"tag.cloud.antreaplus.io/role": role, federationv1alpha1.LabelSourceCluster: cluster}},
		Spec: federationv1alpha1.RemoteEntitySpec{SourceCluster: cluster, SourceName: name, Kind: "VirtualMachine",
			Endpoints: []federationv1alpha1.RemoteEndpoint{{IP: ip}}, Network: remoteNetwork,
			Addresses: []federationv1alpha1.EntityAddress{{IP: ip, Kind: federationv1alpha1.AddressPrivate, Network: remoteNetwork}}},
	}
}

// The networks of the suite (suiteNetworks): the remote entities of
// remoteEntity are in remoteNetwork, flat-connected to this member's
// cluster network and to localNetwork, the network of localEntity.
const (
	remoteNetwork = "aws.vpc-remote"
	localNetwork  = "azure.vnet-local"
)

func suiteNetworks() []*federationv1alpha1.Network {
	remote := federationv1alpha1.FlatConnection{Network: remoteNetwork, CIDRs: []string{"10.1.0.0/16", "10.3.0.0/16"}}
	return []*federationv1alpha1.Network{
		{ObjectMeta: metav1.ObjectMeta{Name: "cluster.member-2"}, Spec: federationv1alpha1.NetworkSpec{
			Kind: federationv1alpha1.NetworkCluster, CIDRs: []string{"10.96.0.0/16"},
			Flat: []federationv1alpha1.FlatConnection{remote, {Network: "cluster.member-1", CIDRs: []string{"172.18.0.0/16"}}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: localNetwork}, Spec: federationv1alpha1.NetworkSpec{
			Kind: federationv1alpha1.NetworkOther, CIDRs: []string{"192.168.0.0/16"}, Flat: []federationv1alpha1.FlatConnection{remote}}},
	}
}

// localEntity is an ExternalEntity role=db of ns in network: a point the
// policies of federatedPolicy are enforced at.
func localEntity(ns, name, network, ip string) *antreav1alpha2.ExternalEntity {
	return &antreav1alpha2.ExternalEntity{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{
			"tag.cloud.antreaplus.io/role": "db", federationv1alpha1.LabelNetwork: network}},
		Spec: antreav1alpha2.ExternalEntitySpec{Endpoints: []antreav1alpha2.Endpoint{{IP: ip}}, ExternalNode: name},
	}
}

type policyMod func(*policyv1alpha1.FederatedNetworkPolicy)

// federatedPolicy is a policy applied to the VMs role=db of ns.
func federatedPolicy(ns, name string, mods ...policyMod) *policyv1alpha1.FederatedNetworkPolicy {
	p := &policyv1alpha1.FederatedNetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: antreav1beta1.NetworkPolicySpec{Priority: 5,
			AppliedTo: []antreav1beta1.AppliedTo{{ExternalEntitySelector: roleSelector("db")}}},
	}
	for _, m := range mods {
		m(p)
	}
	return p
}

func appliedToPods() policyMod {
	return func(p *policyv1alpha1.FederatedNetworkPolicy) {
		p.Spec.AppliedTo = []antreav1beta1.AppliedTo{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "client"}}}}
	}
}

func ingress(name string, peers ...antreav1beta1.NetworkPolicyPeer) policyMod {
	return func(p *policyv1alpha1.FederatedNetworkPolicy) {
		p.Spec.Ingress = append(p.Spec.Ingress, antreav1beta1.Rule{Name: name, Action: ptr.To(antreav1beta1.RuleActionAllow), From: peers})
	}
}

func egressToFederated(name, service string) policyMod {
	return func(p *policyv1alpha1.FederatedNetworkPolicy) {
		p.Spec.Egress = append(p.Spec.Egress, antreav1beta1.Rule{Name: name, Action: ptr.To(antreav1beta1.RuleActionAllow),
			ToServices: []antreav1beta1.PeerService{{Name: service, Scope: antreav1beta1.ScopeClusterSet}}})
	}
}

func roleSelector(role string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"tag.cloud.antreaplus.io/role": role}}
}

func remoteRole(role string) antreav1beta1.NetworkPolicyPeer {
	return antreav1beta1.NetworkPolicyPeer{ExternalEntitySelector: roleSelector(role), Scope: antreav1beta1.ScopeClusterSet}
}

// serviceImport is what a leader writes for a federated Service name:
// the cluster-set IP on port 80.
func serviceImport(ns, name, ip string) *mcsv1beta1.ServiceImport {
	return &mcsv1beta1.ServiceImport{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: serviceexport.ImportLabels(name)},
		Spec: mcsv1beta1.ServiceImportSpec{Type: mcsv1beta1.ClusterSetIP, IPs: []string{ip},
			Ports: []mcsv1beta1.ServicePort{{Name: "http", Protocol: "TCP", Port: 80}}},
	}
}

// importedSlice is what a leader writes of cluster's export of name: ips
// ready on port.
func importedSlice(ns, name, cluster string, port int32, ips ...string) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: serviceexport.SliceName(name, cluster, 0), Labels: serviceexport.SliceLabels(name, cluster, "")},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http"), Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(port)}},
	}
	for _, ip := range ips {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}})
	}
	return s
}
