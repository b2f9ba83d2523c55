package translate

import (
	"fmt"
	"net/netip"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// The benchmark's member: 100 Namespaces of 100 RemoteEntities each (10,000,
// from 4 members, 10 roles) and 1,000 federated policies (10 per
// Namespace). Each policy has an ingress rule from a role's remote VMs and
// an egress rule to a federated Service; every tenth also reaches the
// VMs of the 10 Namespaces of its team through a namespaceSelector.
const (
	benchNamespaces    = 100
	benchEntitiesPerNS = 100
	benchPoliciesPerNS = 10
)

func benchInputs() (*Inputs, []*policyv1alpha1.FederatedNetworkPolicy) {
	in := &Inputs{Member: Member{ClusterID: "member-0", Labels: map[string]string{"region": "eu"}},
		Namespaces: map[string]map[string]string{}, Services: map[types.NamespacedName]ServiceInput{}}
	var entities []federationv1alpha1.RemoteEntity
	var policies []*policyv1alpha1.FederatedNetworkPolicy
	addr := netip.MustParseAddr("10.0.0.1")
	for n := range benchNamespaces {
		ns := fmt.Sprintf("ns-%03d", n)
		in.Namespaces[ns] = map[string]string{"team": fmt.Sprintf("t%d", n%10)}
		for j := range benchEntitiesPerNS {
			cluster := fmt.Sprintf("member-%d", 1+j%4)
			e := remoteEntity(ns, cluster, fmt.Sprintf("vm-%d", j), addr.String())
			e.Labels = map[string]string{"tag.cloud.antreaplus.io/role": fmt.Sprintf("r%d", j%10),
				federationv1alpha1.LabelSourceCluster: cluster, "member.federation.antreaplus.io/region": []string{"eu", "us"}[j%2]}
			entities = append(entities, e)
			addr = addr.Next()
		}
		for k := range benchPoliciesPerNS {
			policies = append(policies, benchPolicy(ns, k, n))
		}
	}
	in.Entities = NewIndex(entities)
	return in, policies
}

func benchPolicy(ns string, k, n int) *policyv1alpha1.FederatedNetworkPolicy {
	from := []antreav1beta1.NetworkPolicyPeer{clusterSetEntities("tag.cloud.antreaplus.io/role", fmt.Sprintf("r%d", k))}
	if k == 0 {
		p := clusterSetEntities("tag.cloud.antreaplus.io/role", "r1", "member.federation.antreaplus.io/region", "us")
		p.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": fmt.Sprintf("t%d", n%10)}}
		from = append(from, p)
	}
	return &policyv1alpha1.FederatedNetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("p-%d", k)},
		Spec: antreav1beta1.NetworkPolicySpec{Priority: 1,
			AppliedTo: []antreav1beta1.AppliedTo{{ExternalEntitySelector: selector("app", "db")}},
			Ingress:   []antreav1beta1.Rule{{Action: ptr.To(antreav1beta1.RuleActionAllow), From: from}},
			Egress:    []antreav1beta1.Rule{{Action: ptr.To(antreav1beta1.RuleActionAllow), ToServices: []antreav1beta1.PeerService{federated("", "orders")}}},
		},
	}
}

// BenchmarkTranslate1kPoliciesOver10kRemoteEntities translates every
// policy once per iteration (ns/op is for the 1,000), with the entities
// indexed once, as the member controller's inputs are.
func BenchmarkTranslate1kPoliciesOver10kRemoteEntities(b *testing.B) {
	in, policies := benchInputs()
	addresses := 0
	for b.Loop() {
		addresses = 0
		for _, p := range policies {
			res := Translate(p, in)
			for _, s := range res.Report.RemoteSources {
				addresses += int(s.Addresses)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(policies)), "ns/policy")
	b.ReportMetric(float64(addresses), "addresses")
}
