package policyview

import (
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// snap builds a member's snapshot; mods add to it.
func snap(context string, mods ...func(*Snapshot)) Snapshot {
	s := Snapshot{Context: context}
	for _, m := range mods {
		m(&s)
	}
	return s
}

func identity(fed, id string) func(*Snapshot) {
	return func(s *Snapshot) {
		s.Membership = &federationv1alpha1.ClusterMembership{Spec: federationv1alpha1.ClusterMembershipSpec{FederationID: fed, ClusterID: id}}
	}
}

func unreachable(msg string) func(*Snapshot) {
	return func(s *Snapshot) { s.Err = errors.New(msg) }
}

func notInstalled(kinds ...string) func(*Snapshot) {
	return func(s *Snapshot) { s.NotInstalled = append(s.NotInstalled, kinds...) }
}

func kindError(kind, msg string) func(*Snapshot) {
	return func(s *Snapshot) {
		if s.KindErrors == nil {
			s.KindErrors = map[string]error{}
		}
		s.KindErrors[kind] = errors.New(msg)
	}
}

func withFNP(p policyv1alpha1.FederatedNetworkPolicy) func(*Snapshot) {
	return func(s *Snapshot) { s.Federated = append(s.Federated, p) }
}

func withNP(p antreav1beta1.NetworkPolicy) func(*Snapshot) {
	return func(s *Snapshot) { s.NetworkPolicies = append(s.NetworkPolicies, p) }
}

func withACNP(p antreav1beta1.ClusterNetworkPolicy) func(*Snapshot) {
	return func(s *Snapshot) { s.ClusterNetworkPolicies = append(s.ClusterNetworkPolicies, p) }
}

func objectMeta(ns, name string, generation int64) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name, Generation: generation}
}

// fnp builds a federated policy of generation gen; mods set its status.
func fnp(ns, name string, gen int64, mods ...func(*policyv1alpha1.FederatedNetworkPolicyStatus)) policyv1alpha1.FederatedNetworkPolicy {
	p := policyv1alpha1.FederatedNetworkPolicy{ObjectMeta: objectMeta(ns, name, gen)}
	p.Spec.Tier, p.Spec.Priority = "application", 10
	for _, m := range mods {
		m(&p.Status)
	}
	return p
}

func fnpPhase(phase policyv1alpha1.FederatedPolicyPhase, observed int64) func(*policyv1alpha1.FederatedNetworkPolicyStatus) {
	return func(st *policyv1alpha1.FederatedNetworkPolicyStatus) {
		st.Phase, st.ObservedGeneration = phase, observed
	}
}

func points(realized ...bool) func(*policyv1alpha1.FederatedNetworkPolicyStatus) {
	return func(st *policyv1alpha1.FederatedNetworkPolicyStatus) {
		for i, r := range realized {
			st.EnforcementPoints = append(st.EnforcementPoints, policyv1alpha1.EnforcementPointStatus{Name: string(rune('a' + i)), Realized: r})
		}
	}
}

func sources(resolved ...bool) func(*policyv1alpha1.FederatedNetworkPolicyStatus) {
	return func(st *policyv1alpha1.FederatedNetworkPolicyStatus) {
		for i, r := range resolved {
			st.RemoteSources = append(st.RemoteSources, policyv1alpha1.RemoteSourceStatus{Rule: "ingress[" + string(rune('0'+i)) + "]", Kind: "RemoteEntities", Resolved: r})
		}
	}
}

func refused(n int) func(*policyv1alpha1.FederatedNetworkPolicyStatus) {
	return func(st *policyv1alpha1.FederatedNetworkPolicyStatus) {
		for i := range n {
			st.RefusedPeers = append(st.RefusedPeers, policyv1alpha1.RefusedPeer{Rule: "ingress[1]", Peer: int32(i), Reason: "RemotePodsRefused", Message: "m"})
		}
	}
}

func fnpCondition(typ string, status metav1.ConditionStatus, reason string) func(*policyv1alpha1.FederatedNetworkPolicyStatus) {
	return func(st *policyv1alpha1.FederatedNetworkPolicyStatus) {
		st.Conditions = append(st.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason, Message: reason + " message"})
	}
}

// antreaStatus is an Antrea policy status.
func antreaStatus(phase antreav1beta1.NetworkPolicyPhase, observed int64, current, desired int32) antreav1beta1.NetworkPolicyStatus {
	return antreav1beta1.NetworkPolicyStatus{Phase: phase, ObservedGeneration: observed, CurrentNodesRealized: current, DesiredNodesRealized: desired}
}

func np(ns, name string, gen int64, st antreav1beta1.NetworkPolicyStatus) antreav1beta1.NetworkPolicy {
	p := antreav1beta1.NetworkPolicy{ObjectMeta: objectMeta(ns, name, gen), Status: st}
	p.Spec.Tier, p.Spec.Priority = "application", 5
	return p
}

// derived is the Antrea policy the member controller derives from the federated policy from.
func derived(ns, from string, gen int64, st antreav1beta1.NetworkPolicyStatus) antreav1beta1.NetworkPolicy {
	p := np(ns, "fnp-"+from, gen, st)
	p.Labels = map[string]string{FederatedPolicyLabel: from, "app.kubernetes.io/managed-by": "antreaplus-member-controller"}
	return p
}

func acnp(name string, gen int64, st antreav1beta1.NetworkPolicyStatus) antreav1beta1.ClusterNetworkPolicy {
	p := antreav1beta1.ClusterNetworkPolicy{ObjectMeta: objectMeta("", name, gen), Status: st}
	p.Spec.Tier, p.Spec.Priority = "securityops", 1.5
	return p
}
