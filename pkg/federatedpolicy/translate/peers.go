package translate

import (
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
)

// peerKind is what a translation does with a peer.
type peerKind int

const (
	// peerCopy: a peer without scope ClusterSet, copied unchanged.
	peerCopy peerKind = iota
	// peerUnscoped: a ClusterSet peer that means the same locally (an
	// ipBlock), copied without its scope.
	peerUnscoped
	// peerEntities: a ClusterSet externalEntitySelector, local and remote.
	peerEntities
	// peerRefused: a ClusterSet peer that is left out.
	peerRefused
)

// The advice of every RemotePodsRefused message.
const remotePodsAdvice = "remote Pods' IPs are not reachable from outside their member and their traffic is NATed when it leaves it: " +
	"use a federated Service (toServices with scope ClusterSet) to reach remote Pods, externalEntitySelector with scope ClusterSet to select remote VMs, " +
	"or drop scope: ClusterSet to select local Pods"

// classify says what to do with a peer and, for a refused one, the reason
// and message.
func classify(p *antreav1beta1.NetworkPolicyPeer) (kind peerKind, reason, message string) {
	if p.Scope != antreav1beta1.ScopeClusterSet {
		return peerCopy, "", ""
	}
	switch {
	case p.PodSelector != nil:
		return peerRefused, ReasonRemotePodsRefused, "podSelector with scope ClusterSet would select remote Pods; " + remotePodsAdvice
	case p.ExternalEntitySelector != nil:
		return peerEntities, "", ""
	case p.NamespaceSelector != nil:
		return peerRefused, ReasonRemotePodsRefused, "namespaceSelector alone with scope ClusterSet would select every remote Pod of those Namespaces; " + remotePodsAdvice
	case p.ServiceAccount != nil:
		return peerRefused, ReasonRemotePodsRefused, "serviceAccount with scope ClusterSet would select remote Pods; " + remotePodsAdvice
	case p.Group != "":
		return peerRefused, ReasonUnsupportedClusterSetPeer, "group with scope ClusterSet is not supported: a Group is resolved in this member only; " +
			"name the selectors in the peer itself (externalEntitySelector with scope ClusterSet)"
	case p.NodeSelector != nil:
		return peerRefused, ReasonUnsupportedClusterSetPeer, "nodeSelector with scope ClusterSet is not supported: members do not export their Nodes; " +
			"drop scope: ClusterSet to select this member's Nodes, or use a federated Service to reach what runs on remote Nodes"
	case p.FQDN != "":
		return peerRefused, ReasonUnsupportedClusterSetPeer, "fqdn with scope ClusterSet is not supported: a name is resolved where the traffic leaves; " +
			"drop scope: ClusterSet (the FQDN matches the same destinations)"
	}
	return peerUnscoped, "", ""
}

// localPeer is the local part of a ClusterSet externalEntitySelector peer:
// the selector without its requirements on federation labels, which are
// evaluated against this member's own identity instead. It is false when
// they do not hold here.
func (t *translator) localPeer(p *antreav1beta1.NetworkPolicyPeer) (antreav1beta1.NetworkPolicyPeer, bool) {
	fed, rest := splitFederationRequirements(p.ExternalEntitySelector)
	if !fed.Matches(t.memberLabels) {
		return antreav1beta1.NetworkPolicyPeer{}, false
	}
	return antreav1beta1.NetworkPolicyPeer{ExternalEntitySelector: rest, NamespaceSelector: p.NamespaceSelector.DeepCopy()}, true
}
