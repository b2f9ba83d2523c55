package translate

import (
	"k8s.io/apimachinery/pkg/types"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// Dependencies are the inputs a policy's translation reads, so that a
// controller translates again only the policies an input change affects.
type Dependencies struct {
	// OwnNamespaceEntities: a ClusterSet externalEntitySelector peer
	// without namespaceSelector reads the RemoteEntities of the policy's
	// Namespace.
	OwnNamespaceEntities bool
	// SelectedNamespaces: a ClusterSet peer with a namespaceSelector reads
	// the Namespaces' labels and the RemoteEntities of those it selects.
	SelectedNamespaces bool
	// Services are the federated Services of toServices entries with scope
	// ClusterSet.
	Services []types.NamespacedName
}

// DependenciesOf returns what the translation of p reads.
func DependenciesOf(p *policyv1alpha1.FederatedNetworkPolicy) Dependencies {
	var d Dependencies
	peers := func(list []antreav1beta1.NetworkPolicyPeer) {
		for i := range list {
			if kind, _, _ := classify(&list[i]); kind != peerEntities {
				continue
			}
			if list[i].NamespaceSelector != nil {
				d.SelectedNamespaces = true
			} else {
				d.OwnNamespaceEntities = true
			}
		}
	}
	seen := map[types.NamespacedName]bool{}
	for _, r := range p.Spec.Ingress {
		peers(r.From)
	}
	for _, r := range p.Spec.Egress {
		peers(r.To)
		for _, s := range r.ToServices {
			key := types.NamespacedName{Namespace: s.Namespace, Name: s.Name}
			if key.Namespace == "" {
				key.Namespace = p.Namespace
			}
			if s.Scope == antreav1beta1.ScopeClusterSet && !seen[key] {
				seen[key] = true
				d.Services = append(d.Services, key)
			}
		}
	}
	return d
}

// EntityNamespaces are the Namespaces whose RemoteEntities the translation
// of p reads, given the labels of the member's Namespaces (sorted).
func EntityNamespaces(p *policyv1alpha1.FederatedNetworkPolicy, namespaces map[string]map[string]string) []string {
	set := map[string]bool{}
	add := func(list []antreav1beta1.NetworkPolicyPeer) {
		for i := range list {
			if kind, _, _ := classify(&list[i]); kind == peerEntities {
				t := translator{policy: p, in: &Inputs{Namespaces: namespaces}}
				for _, ns := range t.peerNamespaces(&list[i]) {
					set[ns] = true
				}
			}
		}
	}
	for _, r := range p.Spec.Ingress {
		add(r.From)
	}
	for _, r := range p.Spec.Egress {
		add(r.To)
	}
	return sortedKeys(set)
}
