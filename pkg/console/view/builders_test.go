package view

import (
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// t0 is the tests' now.
var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func synced(kinds ...string) map[string]KindState {
	out := map[string]KindState{}
	for _, k := range kinds {
		out[k] = KindState{State: Synced}
	}
	return out
}

var everyKind = []string{"ClusterMemberships", "MemberClusters", "Leases", "Nodes", "Namespaces", "ServiceExports", "Services",
	"EndpointSlices", "ServiceImports", "DNSEndpoints", "FederatedNetworkPolicies", "NetworkPolicies", "ClusterNetworkPolicies",
	"CloudProviderAccounts", "CloudEntitySelectors", "VirtualMachines", "CloudNativeServices", "Networks"}

// member is a reachable member of federation "prod", every kind synced.
func member(context, id string, supervisor bool, region, zone string) *Member {
	m := &Member{Context: context, Health: Health{Probed: true, Reachable: true, Since: t0.Add(-time.Hour)}, Kinds: synced(everyKind...),
		Membership: &federationv1alpha1.ClusterMembership{ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.MembershipName},
			Spec: federationv1alpha1.ClusterMembershipSpec{FederationID: "prod", ClusterID: id, Supervisor: supervisor}}}
	if region != "" {
		m.Nodes = []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: context + "-node", Labels: map[string]string{
			corev1.LabelTopologyRegion: region, corev1.LabelTopologyZone: zone}},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "192.0.2.1"}}}}}
	}
	return m
}

// ledBy gives m a leader Lease held by supervisor since term.
func ledBy(m *Member, supervisor string, term int32) *Member {
	m.Leases = append(m.Leases, coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.LeaderLease},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(supervisor), LeaseDurationSeconds: ptr.To(int32(6)), LeaseTransitions: ptr.To(term),
			RenewTime: &metav1.MicroTime{Time: t0.Add(-time.Second)}, AcquireTime: &metav1.MicroTime{Time: t0.Add(-10 * time.Minute)}}})
	return m
}

// registers gives supervisor s a registry entry for each member id.
func registers(s *Member, ids ...string) *Member {
	for _, id := range ids {
		e := federationv1alpha1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: id},
			Spec:   federationv1alpha1.MemberClusterSpec{ClusterID: id, Server: "https://" + id},
			Status: federationv1alpha1.MemberClusterStatus{Reachable: true, ReportedBy: s.ClusterID(), LastProbeTime: &metav1.Time{Time: t0.Add(-time.Second)}}}
		e.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Ready"},
			{Type: federationv1alpha1.MemberCredentialsValid, Status: metav1.ConditionTrue, Reason: "Valid"}}
		s.Registry = append(s.Registry, e)
	}
	return s
}
