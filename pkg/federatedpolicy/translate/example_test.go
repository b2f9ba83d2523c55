package translate_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federatedpolicy/translate"
	"antreaplus.io/antreaplus/pkg/networks"
)

// In member-2: the db VMs accept PostgreSQL from the web VMs of every
// member. The web VM member-1 exported is a RemoteEntity here, at
// 10.1.0.5 in its AWS VPC, which member-2's Azure VNet (10.1.0.0/16 too)
// is not connected to: its traffic arrives through its NAT gateway, so the
// derived Group holds the gateway's address, never 10.1.0.5 (a VM of
// member-2's own), and the report says who else leaves through it.
func ExampleTranslate() {
	web := &metav1.LabelSelector{MatchLabels: map[string]string{"tag.cloud.antreaplus.io/role": "web"}}
	policy := &policyv1alpha1.FederatedNetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db"},
		Spec: antreav1beta1.NetworkPolicySpec{
			Priority:  5,
			AppliedTo: []antreav1beta1.AppliedTo{{ExternalEntitySelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tag.cloud.antreaplus.io/role": "db"}}}},
			Ingress: []antreav1beta1.Rule{{
				Name: "from-web", Action: ptr.To(antreav1beta1.RuleActionAllow),
				From:  []antreav1beta1.NetworkPolicyPeer{{ExternalEntitySelector: web, Scope: antreav1beta1.ScopeClusterSet}},
				Ports: []antreav1beta1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(5432))}},
			}},
		},
	}
	remote := federationv1alpha1.RemoteEntity{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "member-1.nic-a", Labels: map[string]string{
			"tag.cloud.antreaplus.io/role": "web", federationv1alpha1.LabelSourceCluster: "member-1"}},
		Spec: federationv1alpha1.RemoteEntitySpec{SourceCluster: "member-1", SourceName: "nic-a", Kind: "VirtualMachine",
			Endpoints: []federationv1alpha1.RemoteEndpoint{{IP: "10.1.0.5"}}, Network: "aws.vpc-0a",
			Addresses: []federationv1alpha1.EntityAddress{
				{IP: "10.1.0.5", Kind: federationv1alpha1.AddressPrivate, Network: "aws.vpc-0a"},
				{IP: "198.51.100.7", Kind: federationv1alpha1.AddressEgress, Via: "nat-0a"},
			}},
	}
	vnet := federationv1alpha1.Network{ObjectMeta: metav1.ObjectMeta{Name: "azure.vnet-b"},
		Spec: federationv1alpha1.NetworkSpec{Kind: federationv1alpha1.NetworkCloud, CIDRs: []string{"10.1.0.0/16"}}}
	in := &translate.Inputs{
		Member:         translate.Member{ClusterID: "member-2"},
		Namespaces:     map[string]map[string]string{"shop": {}},
		Entities:       translate.NewIndex([]federationv1alpha1.RemoteEntity{remote}),
		Networks:       networks.NewTopology(networks.FromAPI([]federationv1alpha1.Network{vnet})),
		EntityNetworks: map[string][]string{"shop": {"azure.vnet-b"}},
	}
	res := translate.Translate(policy, in)
	if res.Report.Problem != nil {
		fmt.Println(res.Report.Problem.Reason, res.Report.Problem.Message)
		return
	}
	// Write res.Policy and res.Groups; delete the policy's other derived Groups.
	fmt.Println(res.Policy.Name, len(res.Policy.Spec.Ingress[0].From), "peers")
	for _, g := range res.Groups {
		fmt.Println(g.Name, g.Spec.IPBlocks)
	}
	for _, s := range res.Report.RemoteSources {
		fmt.Println(s.Rule, s.Kind, s.Resolved, s.Clusters, s.Addresses)
		fmt.Println(s.SharedEgress)
	}
	// Output:
	// fnp-db 2 peers
	// fnp-db-ingress-0-peer-0 [{198.51.100.7/32 []}]
	// ingress[0]/from-web RemoteEntities true [member-1] 1
	// [198.51.100.7 is NAT gateway nat-0a's: it admits every host behind it]
}
