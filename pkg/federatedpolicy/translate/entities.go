package translate

import (
	"fmt"
	"net/netip"
	"sort"

	"k8s.io/apimachinery/pkg/labels"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// entityPeers translates a ClusterSet externalEntitySelector peer (peer j
// of rule i of dir): its local part, when it holds for this member, and a
// group peer for each Group of the remote entities it selects.
func (t *translator) entityPeers(dir string, i, j int, id string, p *antreav1beta1.NetworkPolicyPeer) []antreav1beta1.NetworkPolicyPeer {
	sel, prob := parseSelector(p.ExternalEntitySelector, id, j, "externalEntitySelector")
	if prob == nil && p.NamespaceSelector != nil {
		_, prob = parseSelector(p.NamespaceSelector, id, j, "namespaceSelector")
	}
	if prob != nil {
		t.fail(prob)
		return nil
	}
	var out []antreav1beta1.NetworkPolicyPeer
	if local, ok := t.localPeer(p); ok {
		out = append(out, local)
	}
	namespaces := t.peerNamespaces(p)
	addrs, clusters := t.selectEntities(sel, namespaces)
	src := policyv1alpha1.RemoteSourceStatus{Rule: id, Kind: KindRemoteEntities, Name: describe(p.ExternalEntitySelector),
		Resolved: len(addrs) > 0, Clusters: clusters, Addresses: int32(len(addrs))}
	if p.NamespaceSelector != nil {
		src.Name += " in namespaces " + describe(p.NamespaceSelector)
	}
	parts := chunks(addrs)
	switch {
	case len(namespaces) == 0:
		src.Message = "the namespaceSelector selects no Namespace of this member"
	case len(addrs) == 0:
		src.Message = "no remote entity matches yet: export them with an EntityExport in their member"
	case len(parts) > 1:
		src.Message = fmt.Sprintf("split into %d Groups of at most %d addresses", len(parts), maxIPBlocks)
		t.note("%s peer %d: %d addresses split into %d Groups of at most %d ipBlocks", id, j, len(addrs), len(parts), maxIPBlocks)
	}
	t.report.RemoteSources = append(t.report.RemoteSources, src)
	for k, part := range parts {
		out = append(out, antreav1beta1.NetworkPolicyPeer{Group: t.addGroup(entitiesGroupName(t.policy.Name, dir, i, j, k), part)})
	}
	return out
}

// peerNamespaces are the Namespaces a peer selects remote entities in:
// the policy's own, or those its namespaceSelector selects (sorted).
func (t *translator) peerNamespaces(p *antreav1beta1.NetworkPolicyPeer) []string {
	if p.NamespaceSelector == nil {
		return []string{t.policy.Namespace}
	}
	sel, prob := parseSelector(p.NamespaceSelector, "", 0, "")
	if prob != nil {
		return nil
	}
	var out []string
	for name, lbls := range t.in.Namespaces {
		if sel.Matches(labels.Set(lbls)) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// selectEntities returns the normalised addresses of the remote entities
// sel selects in namespaces, and the sorted clusters they come from.
func (t *translator) selectEntities(sel labels.Selector, namespaces []string) ([]netip.Addr, []string) {
	var addrs []netip.Addr
	clusters := map[string]bool{}
	for _, ns := range namespaces {
		for _, e := range t.in.Entities.inNamespace(ns) {
			if len(e.addrs) == 0 || !sel.Matches(e.labels) {
				continue
			}
			addrs = append(addrs, e.addrs...)
			clusters[e.cluster] = true
		}
	}
	return normalize(addrs), sortedKeys(clusters)
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
